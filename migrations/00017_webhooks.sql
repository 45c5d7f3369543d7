-- +goose Up

-- A webhook is a target an admin configured: where to POST (url), in which
-- payload format, for which events, and for which launches (server kind
-- and a label "name" or "name=value"; empty matches every launch).
CREATE TABLE webhooks (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url        text        NOT NULL,
    format     text        NOT NULL CHECK (format IN ('json', 'alertmanager', 'slack')),
    events     text[]      NOT NULL,
    server     text        NOT NULL DEFAULT '',
    label      text        NOT NULL DEFAULT '',
    created_by text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- webhook_events is the outbox: something happened that targets may want
-- to hear of. Rows are written in the transaction of the change itself (the
-- trigger below for launch statuses; internal/incident for incidents), so a
-- change that commits is announced and one that rolls back is not. A web
-- process's delivery worker routes each event to the matching targets
-- (routed_at) as deliveries. dedupe makes once-only events once only:
-- a launch is ready once and crashes once, and each silence is announced
-- once. webhook_id names the one target of a "send test" event.
CREATE TABLE webhook_events (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind        text        NOT NULL CHECK (kind IN ('alarm', 'crashed', 'ready', 'silent', 'incident', 'test')),
    launch_id   bigint REFERENCES launches (id) ON DELETE CASCADE,
    incident_id bigint REFERENCES incidents (id) ON DELETE CASCADE,
    webhook_id  bigint REFERENCES webhooks (id) ON DELETE CASCADE,
    detail      jsonb       NOT NULL DEFAULT '{}',
    dedupe      text,
    at          timestamptz NOT NULL DEFAULT now(),
    routed_at   timestamptz
);
CREATE UNIQUE INDEX webhook_events_dedupe_idx ON webhook_events (dedupe) WHERE dedupe IS NOT NULL;
CREATE INDEX webhook_events_unrouted_idx ON webhook_events (id) WHERE routed_at IS NULL;

-- A delivery is one event's payload for one target, rendered once so every
-- attempt sends the same bytes. Pending deliveries are due at next_at; a
-- worker takes one with FOR UPDATE SKIP LOCKED and holds the row lock while
-- it sends, so exactly one web process sends it, and a process that dies
-- mid-send releases it to the others.
CREATE TABLE webhook_deliveries (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_id   bigint      NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id     bigint      NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    kind         text        NOT NULL,
    launch_key   text        NOT NULL DEFAULT '',
    body         text        NOT NULL,
    state        text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts     integer     NOT NULL DEFAULT 0,
    next_at      timestamptz NOT NULL,
    last_status  integer,
    last_error   text        NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    last_at      timestamptz,
    UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id DESC);

-- A launch's status changes in several places (ingest batches, the
-- settler, exit reports, decisions, rules); this trigger announces every
-- change to alarm, crashed or ready in the transaction that makes it,
-- wherever it is made. It is deferred to the commit and announces only the
-- status the launch ends the transaction with: an exit report that settles
-- a traceback (alarm) and then records the exit code (crashed) in one
-- transaction announces the crash alone. A launch is ready once and
-- crashes once; it is announced as alarm at most once a transaction.
-- silent is no stored status: the delivery worker finds silences by
-- scanning.
-- +goose StatementBegin
CREATE FUNCTION webhook_launch_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM webhooks) THEN
        RETURN NULL; -- nobody listens: keep no outbox
    END IF;
    IF (SELECT status FROM launches WHERE id = NEW.id) IS DISTINCT FROM NEW.status THEN
        RETURN NULL; -- a later change in the same transaction superseded it
    END IF;
    INSERT INTO webhook_events (kind, launch_id, detail, dedupe)
    VALUES (NEW.status, NEW.id, jsonb_build_object('status', NEW.status, 'from', OLD.status),
            CASE WHEN NEW.status IN ('ready', 'crashed') THEN NEW.status || ':' || NEW.id
                 ELSE NEW.status || ':' || NEW.id || ':' || txid_current() END)
    ON CONFLICT (dedupe) WHERE dedupe IS NOT NULL DO NOTHING;
    PERFORM pg_notify('launchwatch_webhook', '');
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE CONSTRAINT TRIGGER launches_webhook_status AFTER UPDATE OF status ON launches
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.status IN ('alarm', 'crashed', 'ready'))
    EXECUTE FUNCTION webhook_launch_status();

-- +goose Down
DROP TRIGGER launches_webhook_status ON launches;
DROP FUNCTION webhook_launch_status();
DROP TABLE webhook_deliveries;
DROP TABLE webhook_events;
DROP TABLE webhooks;
