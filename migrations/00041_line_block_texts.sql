-- +goose Up

-- A block's texts leave the SQL array: they are one bytea, compressed by
-- the web process with zstd (store.encodeBlockTexts), and stored as it
-- gives them (STORAGE EXTERNAL: out of line when large, never compressed
-- again). TOAST's lz4 of a 64-line text array kept 0.35 bytes per byte of
-- log and cost the database most of a COPY of blocks; zstd of 512 lines
-- keeps about 0.19, and the database does nothing with the bytes but
-- store them. Blocks grow from 64 to 512 seqs (block = seq >> 9): zstd
-- finds more of a log's repetitions in more lines (0.25 at 64, 0.20 at
-- 256), and a block's texts leave fewer part-filled TOAST chunks.
--
-- Existing blocks (64 seqs, arrays of text) become rows again, and their
-- launches start over at compacted_through 0: the compaction worker, which
-- takes every launch whose lines are not all compacted, writes them into
-- the new blocks (a quiet launch at once, a live one up to its tail), and
-- an in-order batch writes its own as before.
INSERT INTO lines (launch_id, seq, ts, received_at, logged_at, stream, kind, level, rank, alarm_no, text)
SELECT b.launch_id, u.*
FROM line_blocks b
CROSS JOIN LATERAL unnest(b.seq, b.ts, b.received_at, b.logged_at, b.stream, b.kind, b.level, b.rank, b.alarm_no, b.text) AS u;
DELETE FROM line_blocks;
UPDATE launches SET compacted_through = 0, thawed = false WHERE compacted_through <> 0 OR thawed;

ALTER TABLE line_blocks DROP COLUMN text;
ALTER TABLE line_blocks ADD COLUMN texts bytea NOT NULL;
ALTER TABLE line_blocks ALTER COLUMN texts SET STORAGE EXTERNAL;

-- toast_tuple_target 128 (migration 00020) made TOAST compress every array
-- and then move each out of line, 60-odd bytes of toast tuple and index
-- entry apiece, nine a block. With the texts (the bulk of a row) out of
-- line, the default target keeps the other arrays compressed in the row
-- itself: the texts are moved out first (they are the largest), and the
-- arrays are compressed while the row is larger than the target.
-- +goose StatementBegin
DO $$
DECLARE
    p record;
BEGIN
    FOR p IN
        SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'line_blocks'::regclass
    LOOP
        EXECUTE format('ALTER TABLE %I RESET (toast_tuple_target)', p.relname);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
    p record;
BEGIN
    FOR p IN
        SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'line_blocks'::regclass
    LOOP
        EXECUTE format('ALTER TABLE %I SET (toast_tuple_target = 128)', p.relname);
    END LOOP;
END
$$;
-- +goose StatementEnd
-- The texts of the new blocks are zstd that SQL cannot read: going back
-- needs every block turned into rows first (store.Tx.ThawLines over each
-- launch); with blocks left, this fails rather than lose their lines.
ALTER TABLE line_blocks DROP COLUMN texts;
ALTER TABLE line_blocks ADD COLUMN text text[] COMPRESSION lz4 NOT NULL;
UPDATE launches SET compacted_through = 0, thawed = false WHERE compacted_through <> 0 OR thawed;
