-- +goose Up
-- A failed delivery's log kept the start of the target's answer
-- ("HTTP 503: <body>"): a target that is no webhook receiver (an internal
-- page) could be read through it. The worker keeps only the status now;
-- what earlier attempts kept of bodies goes too.
UPDATE webhook_deliveries SET last_error = 'HTTP ' || last_status
WHERE last_status IS NOT NULL AND last_error LIKE 'HTTP %: %';

-- +goose Down
-- The bodies are gone.
SELECT 1;
