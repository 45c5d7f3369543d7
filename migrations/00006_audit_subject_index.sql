-- +goose Up

-- Launch pages (and every live refresh of them) read the decisions on the
-- launch's alarms by subject prefix ("alarm:KEY/"), /rules reads each
-- rule's history by subject ("rule:ID"). Byte order ("C") makes a prefix a
-- plain index range.
CREATE INDEX audit_events_subject_idx ON audit_events ((subject COLLATE "C"), id);

-- +goose Down
DROP INDEX audit_events_subject_idx;
