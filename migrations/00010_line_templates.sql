-- +goose Up

-- line_templates is a bounded summary of a launch's lines by template
-- (classify.LineTemplate), kept by ingest in the transaction that writes
-- the lines, so that /compare reads a few hundred rows instead of scanning
-- a million lines. hash: a 64-bit FNV-1a of the template. severity: the
-- highest of its lines (0 other, 1 warning, 2 error: kind error, ERROR
-- level or part of an alarm, 3 critical: CRITICAL or FATAL level). noise:
-- a progress bar, caret, separator or blank line. first_seq and sample: the
-- first line with the template. A launch keeps at most store.MaxLineTemplates
-- rows: over that, the least severe and latest go (counted in
-- launches.templates_evicted).
CREATE TABLE line_templates (
    launch_id  bigint   NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    hash       bigint   NOT NULL,
    template   text     NOT NULL,
    severity   smallint NOT NULL,
    noise      boolean  NOT NULL,
    first_seq  bigint   NOT NULL,
    line_count bigint   NOT NULL,
    sample     text     NOT NULL,
    PRIMARY KEY (launch_id, hash)
);

-- templates_built: the summary covers every line of the launch. Launches
-- stored before this migration have none (false); a rebuilt classification
-- marks it stale (false) too; /compare builds it on first use. New launches
-- start with an empty, complete summary (the default becomes true).
ALTER TABLE launches
    ADD COLUMN templates_built   boolean NOT NULL DEFAULT false,
    ADD COLUMN templates_evicted bigint  NOT NULL DEFAULT 0;
ALTER TABLE launches ALTER COLUMN templates_built SET DEFAULT true;

-- +goose Down
ALTER TABLE launches
    DROP COLUMN templates_built,
    DROP COLUMN templates_evicted;
DROP TABLE line_templates;
