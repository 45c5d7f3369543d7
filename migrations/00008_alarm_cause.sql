-- +goose Up

-- cause_no: the alarm this one is a consequence of (a launcher reporting
-- its child's failure, "See root cause above"); NULL for a root cause. A
-- consequence is shown under its cause and decided with it.
ALTER TABLE alarms ADD COLUMN cause_no integer;

-- +goose Down
ALTER TABLE alarms DROP COLUMN cause_no;
