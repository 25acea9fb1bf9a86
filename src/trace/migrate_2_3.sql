-- migrate_2_3.sql: brings a store of schema version 2 to version 3. store.c
-- runs it inside the transaction that then sets PRAGMA user_version = 3.
--
-- Version 3 lets a version be rolled back (the reason, when its measured
-- time was worse than its parent's; NULL while it stands) and keeps the
-- cost model fitted on its traces (JSON, NULL until a round fits one).

ALTER TABLE versions ADD COLUMN rolled_back TEXT;
ALTER TABLE versions ADD COLUMN model TEXT;
