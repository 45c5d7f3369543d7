-- +goose Up

-- A launch whose last lines are a trailing ERROR run, or a traceback that
-- only its next line can decide (classify's undecided events), waits with
-- pending_runs set and no settle deadline. When nothing more came for the
-- stream-end bound (no line, no heartbeat), its stream has ended and the
-- settler counts what waits: the settler looks for such launches with this
-- index, by when they were last heard from.
CREATE INDEX launches_stream_end_idx ON launches (GREATEST(last_line_at, last_heartbeat_at))
    WHERE pending_runs AND settle_at IS NULL;

-- +goose Down
DROP INDEX launches_stream_end_idx;
