-- +goose Up

-- A line stored as a row of lines costs about 70 bytes beside its text (tuple
-- header, item pointer, keys, times, index entries), and a log line is short
-- (about 170 bytes): one row per line stores 2.3 bytes per byte of log. So
-- lines at rest are compacted (store.CompactLines, run by a worker once a
-- launch is quiet or far behind its tail) into one row per 64 consecutive
-- seqs of a launch (block = seq >> 6): each column of the lines is an array
-- in seq order, and the row is compressed by TOAST (lz4; toast_tuple_target
-- 128 makes every array a compression candidate, not only the text). The
-- corpus mix stores at about 0.55 bytes per byte of log this way.
--
-- A line is in lines or in line_blocks, never both. Lines that an index of
-- lines serves (errors, alarms, readiness: lines_errors_idx, lines_ready_idx)
-- stay rows. Readers take the union of both (store.lineSource); a writer
-- that adds or rewrites lines of a compacted block turns the block back into
-- rows first (store.Tx.ThawLines), so rows are the only thing ever updated.
-- min_ts/max_ts let a time range skip blocks; n (how many lines the block
-- holds) lets a window of N lines pick its blocks before unpacking any. Partitioned like lines, so
-- retention drops a block of launches' lines in both.
CREATE TABLE line_blocks (
    launch_id   bigint        NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    block       bigint        NOT NULL,
    min_ts      timestamptz   NOT NULL,
    max_ts      timestamptz   NOT NULL,
    n           integer       NOT NULL,
    seq         bigint[]      COMPRESSION lz4 NOT NULL,
    ts          timestamptz[] COMPRESSION lz4 NOT NULL,
    received_at timestamptz[] COMPRESSION lz4 NOT NULL,
    logged_at   timestamptz[] COMPRESSION lz4 NOT NULL,
    stream      text[]        COMPRESSION lz4 NOT NULL,
    kind        text[]        COMPRESSION lz4 NOT NULL,
    level       text[]        COMPRESSION lz4 NOT NULL,
    rank        text[]        COMPRESSION lz4 NOT NULL,
    alarm_no    integer[]     COMPRESSION lz4 NOT NULL,
    text        text[]        COMPRESSION lz4 NOT NULL,
    PRIMARY KEY (launch_id, block)
) PARTITION BY RANGE (launch_id);

-- launches.compacted_through: the launch's lines below this seq (exclusive)
-- were compacted, and no block lies at or beyond it, so a batch after it
-- thaws nothing. thawed: a block below it was turned back into rows (a gap
-- fill, a revised verdict) and is compacted again by the worker.
ALTER TABLE launches
    ADD COLUMN compacted_through bigint  NOT NULL DEFAULT 0,
    ADD COLUMN thawed            boolean NOT NULL DEFAULT false;

-- One partition of line_blocks beside each existing partition of lines,
-- with the same bounds; internal/store creates all three for new blocks.
-- +goose StatementBegin
DO $$
DECLARE
    p record;
BEGIN
    FOR p IN
        SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'lines'::regclass
    LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF line_blocks %s WITH (toast_tuple_target = 128)',
            'line_blocks_' || substr(p.relname, length('lines_') + 1), p.bound);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE launches DROP COLUMN compacted_through, DROP COLUMN thawed;
DROP TABLE line_blocks;
