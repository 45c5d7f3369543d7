-- +goose Up

-- settled: the alarm's event can no longer change (its traceback ended, no
-- retry line can withdraw it, the process exited, or the settle bound after
-- its last line passed). The status counts settled fatal alarms only, so a
-- verdict never flickers. Alarms stored before this were final already.
ALTER TABLE alarms ADD COLUMN settled boolean NOT NULL DEFAULT true;

-- settle_at: when the launch's unsettled fatal alarms are settled by time if
-- no line comes first (the last batch's arrival plus the settle bound);
-- NULL when nothing waits. The settler of every web process reads it.
ALTER TABLE launches ADD COLUMN settle_at timestamptz;
CREATE INDEX launches_settle_at_idx ON launches (settle_at) WHERE settle_at IS NOT NULL;

-- pending_runs: the launch's last lines are a run of ERROR lines and it is
-- not ready. A reader asking for its verdict after the settle bound takes
-- them as the process's last words (a fatal alarm, withdrawn should more
-- lines come); the settler leaves them alone, so a quiet phase after a
-- harmless ERROR line is no alarm.
ALTER TABLE launches ADD COLUMN pending_runs boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE launches DROP COLUMN pending_runs;
DROP INDEX launches_settle_at_idx;
ALTER TABLE launches DROP COLUMN settle_at;
ALTER TABLE alarms DROP COLUMN settled;
