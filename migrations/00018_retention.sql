-- +goose Up

-- A pinned launch is kept by retention (--retention) however old its last
-- line is: a reference run, the launch a post-mortem quotes. Who pinned it
-- and when are shown on its page; the audit log keeps every pin and unpin.
ALTER TABLE launches
    ADD COLUMN pinned    boolean     NOT NULL DEFAULT false,
    ADD COLUMN pinned_by text        NOT NULL DEFAULT '',
    ADD COLUMN pinned_at timestamptz;

-- +goose Down
ALTER TABLE launches
    DROP COLUMN pinned,
    DROP COLUMN pinned_by,
    DROP COLUMN pinned_at;
