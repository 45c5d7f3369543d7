-- +goose Up

-- "Errors only" in the log view pages through the lines of alarms and of
-- kind error; on a million-line launch that must not scan every line. The
-- predicate is exactly the filter's, so the planner can use this index
-- (store.FilteredLines writes the condition literally when it applies).
CREATE INDEX lines_errors_idx ON lines (launch_id, seq) WHERE kind = 'error' OR alarm_no IS NOT NULL;

-- +goose Down
DROP INDEX lines_errors_idx;
