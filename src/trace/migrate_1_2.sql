-- migrate_1_2.sql: brings a store of schema version 1 (the first release)
-- to version 2. store.c runs it inside the transaction that then sets
-- PRAGMA user_version = 2, so a store is either all 1 or all 2.
--
-- Version 2 adds the size of each execution's full output (NULL for the
-- executions recorded before) and the optimizer's proposals.

ALTER TABLE executions ADD COLUMN output_bytes INTEGER;

CREATE TABLE proposals (
    id             INTEGER PRIMARY KEY,
    lineage        INTEGER NOT NULL REFERENCES lineages(id),
    rule           TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('accepted', 'rejected')),
    reason         TEXT,
    counterexample TEXT,
    proof_id       INTEGER REFERENCES proofs(id),
    created_at     TEXT NOT NULL
);
