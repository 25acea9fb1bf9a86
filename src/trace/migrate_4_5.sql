-- migrate_4_5.sql: brings a store of schema version 4 to version 5. store.c
-- runs it inside the transaction that then sets PRAGMA user_version = 5.
--
-- Version 5 keeps what learning carries across processes that is not a
-- version, a proof or a kernel's cost model: a row per kind, key and
-- hardware fingerprint, as schema.sql describes.

CREATE TABLE learned (
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,
    hardware   TEXT NOT NULL,
    value      BLOB NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (kind, key, hardware)
) WITHOUT ROWID;
