-- migrate_5_6.sql: brings a store of schema version 5 to version 6. store.c
-- runs it inside the transaction that then sets PRAGMA user_version = 6,
-- and then seals the proofs of the versions already there (seal.h), from
-- their rows as they are: nothing before version 6 was sealed.
--
-- Version 6 binds each proof to the version it proved: the hashes of the
-- graph before (the parent's), the graph after, the certificate (the
-- version's rewrite and evidence, the proof's text and result), and the
-- chain of the lineage up to that version (docs/store.md, "Trust").

ALTER TABLE proofs ADD COLUMN graph_before TEXT;
ALTER TABLE proofs ADD COLUMN graph_after TEXT;
ALTER TABLE proofs ADD COLUMN certificate TEXT;
ALTER TABLE proofs ADD COLUMN chain TEXT;
