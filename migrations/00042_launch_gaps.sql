-- +goose Up

-- A launch's gaps, kept by ingest: every stretch longer than 30 seconds
-- (the shortest the timeline marks, timeline.GapThreshold) between two
-- consecutive lines (by seq), on the launch clock. Finding them from the
-- lines read a million-line launch's every line time, or, pruned by its
-- blocks' time spans, every block of a log whose times jump (a
-- concatenation of logs): 700 ms of a cold launch page. An in-order batch
-- knows the stretches it adds (its own lines, and the one from the
-- launch's last line to its first), so it writes them here as it stores
-- its lines.
--
-- launches.gaps_through says how far the summary holds: every stretch
-- between consecutive lines whose later line's seq is at most gaps_through
-- is here, and gaps_last_seq/gaps_last_ts are the seq and time of the
-- last line at or before it (NULL: none, or not known). A batch that fills
-- a gap (a line before the launch's end) cuts the summary back to before
-- its first line; Store.Gaps reads the lines after gaps_through itself,
-- and the compaction worker brings a quiet launch's summary up to its end
-- again (Store.RepairGaps).
CREATE TABLE launch_gaps (
    launch_id bigint      NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    after_seq bigint      NOT NULL, -- the line before the stretch
    to_seq    bigint      NOT NULL, -- the line after it
    from_ts   timestamptz NOT NULL,
    to_ts     timestamptz NOT NULL,
    PRIMARY KEY (launch_id, after_seq)
);

ALTER TABLE launches
    ADD COLUMN gaps_through  bigint NOT NULL DEFAULT 0,
    ADD COLUMN gaps_last_seq bigint,
    ADD COLUMN gaps_last_ts  timestamptz;

-- Existing launches: their stretches from every stored line, rows and
-- blocks (a block's seqs and times are SQL arrays).
CREATE TEMPORARY TABLE launch_gap_lines ON COMMIT DROP AS
SELECT launch_id, seq, ts,
    lag(seq) OVER o AS prev_seq, lag(ts) OVER o AS prev_ts, lead(seq) OVER o IS NULL AS last
FROM (
    SELECT launch_id, seq, ts FROM lines
    UNION ALL
    SELECT b.launch_id, u.seq, u.ts FROM line_blocks b CROSS JOIN LATERAL unnest(b.seq, b.ts) AS u(seq, ts)
) l
WINDOW o AS (PARTITION BY launch_id ORDER BY seq);

INSERT INTO launch_gaps (launch_id, after_seq, to_seq, from_ts, to_ts)
SELECT launch_id, prev_seq, seq, prev_ts, ts FROM launch_gap_lines WHERE ts - prev_ts > interval '30 seconds';

UPDATE launches la SET gaps_through = GREATEST(la.last_seq, g.seq), gaps_last_seq = g.seq, gaps_last_ts = g.ts
FROM launch_gap_lines g WHERE g.launch_id = la.id AND g.last;

UPDATE launches SET gaps_through = last_seq
WHERE gaps_last_seq IS NULL AND NOT EXISTS (SELECT 1 FROM launch_gap_lines g WHERE g.launch_id = launches.id);

-- +goose Down
ALTER TABLE launches
    DROP COLUMN gaps_through,
    DROP COLUMN gaps_last_seq,
    DROP COLUMN gaps_last_ts;
DROP TABLE launch_gaps;
