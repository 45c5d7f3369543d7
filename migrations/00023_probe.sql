-- +goose Up

-- server_detected: the launch's server is not what a shipper gave
-- (?server=, --server) but the family the classifier detected in its lines
-- (classify.State.Server); every batch sets it again while no shipper gives
-- one, so server-scoped rules, filters and webhooks see the family of a
-- launch shipped without --server. A server a shipper gives replaces it.
ALTER TABLE launches ADD COLUMN server_detected boolean NOT NULL DEFAULT false;

-- health_ok_since, health_ok_last, health_ok_detail: a health probe passed
-- after this fatal alarm said the engine died (the first and the latest
-- such pass, and what answered). A health endpoint that answers 200 for a
-- dead engine keeps load balancers and orchestrators sending it traffic.
ALTER TABLE alarms ADD COLUMN health_ok_since timestamptz;
ALTER TABLE alarms ADD COLUMN health_ok_last timestamptz;
ALTER TABLE alarms ADD COLUMN health_ok_detail text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE alarms DROP COLUMN health_ok_detail;
ALTER TABLE alarms DROP COLUMN health_ok_last;
ALTER TABLE alarms DROP COLUMN health_ok_since;
ALTER TABLE launches DROP COLUMN server_detected;
