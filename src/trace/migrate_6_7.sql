-- migrate_6_7.sql: brings a store of schema version 6 to version 7. store.c
-- runs it inside the transaction that then sets PRAGMA user_version = 7.
--
-- Version 7 reads the decisions of each execution from its decisions JSON,
-- which every execution row holds: the table that kept them a second time
-- (and its index) cost each recorded run's commit two more B-trees, about
-- 1.5% of a 2 ms run (bench/record). The view has the table's columns but
-- its id, so `SELECT reason FROM decisions WHERE decision = ...` reads as
-- before.

DROP INDEX IF EXISTS decisions_by_execution;
DROP TABLE decisions;
CREATE VIEW decisions(execution, seq, decision, reason, proof_id) AS
    SELECT execution, seq,
           CASE WHEN json_type(o, '$.decision') = 'text' THEN o ->> '$.decision' END,
           CASE WHEN json_type(o, '$.reason') = 'text' THEN o ->> '$.reason' END,
           CASE WHEN json_type(o, '$.proof_id') = 'integer' THEN o ->> '$.proof_id' END
    FROM (SELECT e.id AS execution, d.key AS seq,
                 CASE WHEN d.type = 'object' THEN d.value END AS o
          FROM executions e, json_each(e.decisions) d);
