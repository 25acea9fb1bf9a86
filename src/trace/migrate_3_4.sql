-- migrate_3_4.sql: brings a store of schema version 3 to version 4. store.c
-- runs it inside the transaction that then sets PRAGMA user_version = 4.
--
-- Version 4 keeps the kernels' cost models (until then refitted in each
-- process and lost at its end): one row per kernel, variant, device and
-- hardware fingerprint, as schema.sql describes.

CREATE TABLE cost_models (
    kernel     TEXT NOT NULL,
    variant    TEXT NOT NULL,
    device     TEXT NOT NULL,
    hardware   TEXT NOT NULL,
    params     TEXT NOT NULL,
    observed   INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (kernel, variant, device, hardware)
) WITHOUT ROWID;
