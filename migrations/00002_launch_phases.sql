-- +goose Up

-- A launch's startup phases (init, weights, kv_cache, cuda_graph, ...) as the
-- classifier found them, so the timeline can draw them as bars with
-- durations. A phase is identified by the line that began it; a running
-- phase has no end yet. Times are the lines' own times.
CREATE TABLE launch_phases (
    launch_id bigint      NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    begin_seq bigint      NOT NULL,
    name      text        NOT NULL,
    begin_at  timestamptz NOT NULL,
    end_seq   bigint,
    end_at    timestamptz,
    done      integer     NOT NULL DEFAULT 0,
    total     integer     NOT NULL DEFAULT 0,
    PRIMARY KEY (launch_id, begin_seq, name)
);

-- +goose Down
DROP TABLE launch_phases;
