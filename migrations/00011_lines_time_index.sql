-- +goose Up

-- The timeline's zoom (?from=&to=) filters the log view to the lines of a
-- time range: the range's first and last line on the launch clock are two
-- probes of this index, so a million-line launch zooms as fast as a small
-- one. (Numbered 00011: 00010 is taken by the compare work's table.)
CREATE INDEX lines_time_idx ON lines (launch_id, ts, seq);

-- +goose Down
DROP INDEX lines_time_idx;
