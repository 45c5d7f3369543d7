-- +goose Up

-- What a launch's process wrapper (`launchwatch run`) reports besides log
-- lines: health probe results and the process exit. They are facts about
-- the process, not the log, so they are kept apart and drawn beside the
-- log's own signals on the timeline (a server can answer /health after its
-- scheduler died; both must show).
CREATE TABLE launch_events (
    launch_id bigint      NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    id        bigint GENERATED ALWAYS AS IDENTITY,
    at        timestamptz NOT NULL DEFAULT now(),
    kind      text        NOT NULL CHECK (kind IN ('health_ok', 'health_fail', 'exit')),
    detail    text        NOT NULL DEFAULT '',
    PRIMARY KEY (launch_id, id)
);

-- ready_source says what made the launch ready: its log or a health probe.
ALTER TABLE launches ADD COLUMN ready_source text NOT NULL DEFAULT '';

-- exit_requested: the process ended because its operator asked it to (the
-- wrapper forwarded the operator's SIGINT/SIGTERM). That is a deliberate
-- shutdown, not a crash.
ALTER TABLE launches ADD COLUMN exit_requested boolean NOT NULL DEFAULT false;

-- An alarm the classifier took back once later lines showed it was none (a
-- caught and retried traceback, a repeat merged into another rank's alarm)
-- is kept with any decision on it, but no longer counts or shows.
ALTER TABLE alarms ADD COLUMN withdrawn boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE alarms DROP COLUMN withdrawn;
ALTER TABLE launches DROP COLUMN exit_requested;
ALTER TABLE launches DROP COLUMN ready_source;
DROP TABLE launch_events;
