-- +goose Up

-- Search inside a launch (the log view's ?q=, substring or RE2) must cover
-- every line of a million-line launch in well under a second. A pg_trgm GIN
-- index on lines.text would answer it, but it made ingest three times
-- slower (60k → 21k lines/s in BenchmarkIngestText) and every rewrite of a
-- line's time (a corrected launch clock) re-inserts all its trigrams. So
-- the index is coarser, in the way Loki's bloom filters are: one row per
-- 64 consecutive seqs of a launch (chunk = seq >> 6) holds a bloom filter
-- of the trigrams of those lines' case-folded text (store.bloom, computed
-- in Go at ingest and OR-ed into the row). A search tests the launch's
-- filters (1 KiB each, ~16 MB for a million lines), keeps the chunks that
-- may hold a match and reads only their lines. The filter is stored PLAIN
-- (inline, uncompressed) so testing it costs no detoasting.
CREATE TABLE line_chunks (
    launch_id bigint         NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    chunk     bigint         NOT NULL,
    bloom     bit varying    NOT NULL,
    PRIMARY KEY (launch_id, chunk)
);
ALTER TABLE line_chunks ALTER COLUMN bloom SET STORAGE PLAIN;

-- search_indexed: every line of the launch is in line_chunks. Launches
-- stored before this migration are not (false) and are searched by the
-- bounded scan as before; new launches are from their first line (the
-- default becomes true).
ALTER TABLE launches ADD COLUMN search_indexed boolean NOT NULL DEFAULT false;
ALTER TABLE launches ALTER COLUMN search_indexed SET DEFAULT true;

-- The timeline marks every time a launch became ready (a server that
-- restarted inside one launch becomes ready again); launches keep only the
-- first, so the ready lines are found by this small partial index.
CREATE INDEX lines_ready_idx ON lines (launch_id, seq) WHERE kind = 'ready';

-- +goose Down
DROP INDEX lines_ready_idx;
ALTER TABLE launches DROP COLUMN search_indexed;
DROP TABLE line_chunks;
