-- +goose Up

-- The launch clock (design.md, "The launch clock"). lines.ts is the line's
-- time on its launch's clock: its own log time (logged_at, as written in
-- its text, read as UTC) plus the launch's clock offset, a neighbour's
-- time for a line without one, or the receive time in a launch whose lines
-- carry no time at all.
--
-- logged_at: the time in the line's own text, read as UTC; NULL if none.
ALTER TABLE lines ADD COLUMN logged_at timestamptz;

-- clock_offset: nanoseconds added to a log time to put it on the launch
-- clock (the host's time zone written without an offset, or its clock's
-- error). clock_source: '' (none measured), 'estimated' (from lines
-- received live) or 'tz' (the shipper's --tz, kept in clock_tz).
-- clock_samples: the last received-minus-logged samples of live batches
-- (bounded). clock_logged: a line with a log time was seen, so every line
-- of the launch is on the log's clock.
ALTER TABLE launches
    ADD COLUMN clock_offset  bigint   NOT NULL DEFAULT 0,
    ADD COLUMN clock_source  text     NOT NULL DEFAULT '',
    ADD COLUMN clock_tz      text     NOT NULL DEFAULT '',
    ADD COLUMN clock_samples bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN clock_logged  boolean  NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE launches
    DROP COLUMN clock_offset,
    DROP COLUMN clock_source,
    DROP COLUMN clock_tz,
    DROP COLUMN clock_samples,
    DROP COLUMN clock_logged;
ALTER TABLE lines DROP COLUMN logged_at;
