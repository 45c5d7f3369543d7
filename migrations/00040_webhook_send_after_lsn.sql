-- +goose Up

-- A delivery is sent only once every connected standby holds it: when a
-- worker first takes it, it notes where the primary's log ends
-- (send_after_lsn, past the commits of the event and of the delivery) and
-- waits until each standby streaming from the primary has flushed that
-- far (pg_stat_replication.flush_lsn). So a failover to an asynchronous
-- standby never loses a delivery that was sent, nor hands its id out
-- again to another message: a receiver that drops repeated
-- X-Launchwatch-Delivery ids hears of each event once (docs/scale.md).
ALTER TABLE webhook_deliveries ADD COLUMN send_after_lsn pg_lsn;

-- +goose Down
ALTER TABLE webhook_deliveries DROP COLUMN send_after_lsn;
