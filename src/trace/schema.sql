-- schema.sql: the store's schema, version 8 (PRAGMA user_version = 8, set
-- by store.c once this has run). Embedded into the binary at build time
-- (tools/embed.c, symbol fx_schema_sql); store.c runs it on an empty
-- database. A store of version 1 to 7 is brought here by migrate_1_2.sql to
-- migrate_7_8.sql, step by step.
--
-- Times are UTC text, 'YYYY-MM-DDTHH:MM:SS.mmmZ'. JSON columns hold JSON
-- text as written by flux, never re-encoded (integers may exceed 64 bits).

-- Source files, by fx_store_hash of their text, so that replay can rebuild
-- a program after its file changed.
CREATE TABLE sources (
    hash TEXT PRIMARY KEY,
    path TEXT,
    text TEXT NOT NULL
);

-- An intent's life: one lineage per (name, hash of its normalised text).
CREATE TABLE lineages (
    id          INTEGER PRIMARY KEY,
    intent      TEXT NOT NULL,
    hash        TEXT NOT NULL,
    source_hash TEXT REFERENCES sources(hash),
    created_at  TEXT NOT NULL,
    UNIQUE (intent, hash)
);

-- A proof, and, once a version is installed on it, its seal (schema
-- version 6, src/trace/seal.h): the hashes of the graph it was proved from
-- (the parent version's), the graph it proved (the version's), the
-- certificate (the version's rewrite and evidence, this row's obligation
-- and result) and the lineage's chain up to that version. A version whose
-- rows no longer hash to its proof's seal is refused.
CREATE TABLE proofs (
    id           INTEGER PRIMARY KEY,
    obligation   TEXT NOT NULL,
    result       TEXT NOT NULL,
    solver       TEXT,
    ms           REAL,
    created_at   TEXT NOT NULL,
    graph_before TEXT,
    graph_after  TEXT,
    certificate  TEXT,
    chain        TEXT
);

-- The graph versions of a lineage: v1 (the naive reading), then one per
-- accepted rewrite. A version rolled back (measured slower than its parent)
-- says why in rolled_back and is no longer run; model is the cost model
-- fitted on its traces (JSON).
CREATE TABLE versions (
    id         INTEGER PRIMARY KEY,
    lineage    INTEGER NOT NULL REFERENCES lineages(id),
    label      TEXT NOT NULL,
    graph_json TEXT NOT NULL,
    parent     INTEGER REFERENCES versions(id),
    rewrite    TEXT,
    proof_id   INTEGER REFERENCES proofs(id),
    evidence   TEXT,
    created_at TEXT NOT NULL,
    rolled_back TEXT,
    model      TEXT,
    UNIQUE (lineage, label)
);

-- One row per recorded run: the fields of `flux run --json`. Ids are given
-- by store.c from blocks reserved in id_blocks, so they are unique across
-- processes; a process that dies leaves a gap, never a reused id. kernels
-- (schema version 8) holds the run's kernel calls, {"thread", "calls",
-- "totals", ...} (docs/store.md), NULL when it called none.
CREATE TABLE executions (
    id            INTEGER PRIMARY KEY,
    version       INTEGER NOT NULL REFERENCES versions(id),
    intent        TEXT NOT NULL,
    expr          TEXT,
    input         TEXT,
    output        TEXT,
    output_hash   TEXT,
    output_bytes  INTEGER,
    decisions     TEXT,
    hardware      TEXT,
    duration_ms   REAL,
    optimizations TEXT,
    proof_ids     TEXT,
    verified      TEXT,
    recorded_at   TEXT NOT NULL,
    kernels       TEXT
);
CREATE INDEX executions_by_intent ON executions(intent, id);
CREATE INDEX executions_by_version ON executions(version);

-- The decision tree of each execution, one row per entry, in order: a
-- view of executions.decisions (schema version 7; a table before, which
-- each run's commit wrote a second time, a table and an index more:
-- docs/store.md, "What it costs").
CREATE VIEW decisions(execution, seq, decision, reason, proof_id) AS
    SELECT execution, seq,
           CASE WHEN json_type(o, '$.decision') = 'text' THEN o ->> '$.decision' END,
           CASE WHEN json_type(o, '$.reason') = 'text' THEN o ->> '$.reason' END,
           CASE WHEN json_type(o, '$.proof_id') = 'integer' THEN o ->> '$.proof_id' END
    FROM (SELECT e.id AS execution, d.key AS seq,
                 CASE WHEN d.type = 'object' THEN d.value END AS o
          FROM executions e, json_each(e.decisions) d);

-- Running per-node counters of each version, summed over its executions:
-- how often the node ran, and the time (ns) the VM's sampler found it
-- running (schema version 8; docs/web.md, "Profiler").
CREATE TABLE node_counts (
    version INTEGER NOT NULL REFERENCES versions(id),
    node    INTEGER NOT NULL,
    count   INTEGER NOT NULL,
    ns      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (version, node)
) WITHOUT ROWID;

-- Rewrites the optimizer proposed for a lineage, and what became of them.
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

-- The next free id of each sequence handed out in blocks ('executions').
CREATE TABLE id_blocks (
    name TEXT PRIMARY KEY,
    next INTEGER NOT NULL
);

-- The kernels' cost models (src/exec/sortcost.h for the sort kernels'),
-- fitted on their runs: one per kernel, variant, device (src/hw/device.h)
-- and hardware fingerprint (fx_hw_fingerprint), so that a store shared by
-- two machines keeps each one's. params is a JSON array of numbers whose
-- meaning is the kernel's (the sort kernels': ns a unit of work at each
-- memory level); observed counts the runs that fitted them.
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

-- What learning carries across processes that is not a version, a proof or
-- a kernel's cost model (schema version 5): one row per kind (who owns it:
-- "variant_models", "proposer", "checked", ...), key (the owner's: a
-- lineage and version, a source's hash) and hardware fingerprint ("" when
-- it does not depend on the machine). value is the owner's text or bytes;
-- a row that its owner cannot read is ignored by it, never an error.
CREATE TABLE learned (
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,
    hardware   TEXT NOT NULL,
    value      BLOB NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (kind, key, hardware)
) WITHOUT ROWID;

-- The learning rounds (schema version 8): which version of a lineage each
-- examined, the newest execution the store held then, and what each rule
-- said (turns: [{"rule", "applies", "outcome", "why"}]) and what came of
-- it (outcome: "installed v3", "v2 stays: ..."). Time travel shows the
-- round before an execution: what the optimizer had weighed by then.
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
