-- migrate_7_8.sql: brings a store of schema version 7 to version 8. store.c
-- runs it inside the transaction that then sets PRAGMA user_version = 8.
--
-- Version 8 keeps what the profiler of `flux serve` shows (docs/web.md):
-- the time sampled at each node beside its count, the kernel calls of each
-- execution, and the learning rounds with what each rule said.

ALTER TABLE node_counts ADD COLUMN ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE executions ADD COLUMN kernels TEXT;
CREATE TABLE rounds (
    id              INTEGER PRIMARY KEY,
    lineage         INTEGER NOT NULL REFERENCES lineages(id),
    version         INTEGER NOT NULL REFERENCES versions(id),
    after_execution INTEGER NOT NULL,
    turns           TEXT NOT NULL,
    outcome         TEXT NOT NULL,
    created_at      TEXT NOT NULL
);
CREATE INDEX rounds_by_lineage ON rounds(lineage, after_execution);
