-- +goose Up

-- The addresses a launch's server announced it listens on ("Uvicorn running
-- on http://0.0.0.0:8000"), in the order the classifier first saw them
-- (classify.Summary.Endpoints): the launch JSON's "endpoints", which
-- `launchwatch run` probes.
ALTER TABLE launches ADD COLUMN endpoints text[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE launches DROP COLUMN endpoints;
