-- +goose Up
-- A hash chain over the audit log, so that a row changed behind the
-- server's back (by a role that may disable the append-only trigger: the
-- tables' owner, a superuser) is found: `launchwatch audit verify` reads the
-- chain through the API and computes every hash again.
--
-- Each row has its place in the chain (chain_seq, 1, 2, ...: the order rows
-- were chained in, which is not always id order when transactions overlap)
-- and hash = sha256(previous row's hash || audit_row_content(the row)), the
-- first row's previous hash 32 zero bytes. audit_chain holds the head: the
-- last place and hash. A trigger computes both as each row is inserted, in
-- the inserting transaction, holding the head's row lock until it ends, so
-- the chain is one line whatever the concurrency.
ALTER TABLE audit_events ADD COLUMN chain_seq bigint, ADD COLUMN hash bytea;

CREATE TABLE audit_chain (
    head boolean PRIMARY KEY DEFAULT true CHECK (head),
    seq  bigint  NOT NULL,
    hash bytea   NOT NULL
);

-- The bytes a row's hash covers, as internal/auditchain writes them: a
-- version line, then each field as its length in bytes, ':', the field
-- and a newline: the place, the id, the time in unix microseconds, actor,
-- action, subject, and the detail as PostgreSQL writes jsonb.
-- +goose StatementBegin
CREATE FUNCTION audit_row_content(seq bigint, id bigint, at timestamptz, actor text, action text, subject text, detail jsonb)
RETURNS bytea LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT convert_to('launchwatch audit v1' || E'\n', 'UTF8')
        || string_agg(convert_to(octet_length(convert_to(f, 'UTF8'))::text || ':', 'UTF8') || convert_to(f, 'UTF8') || convert_to(E'\n', 'UTF8'), ''::bytea ORDER BY n)
    FROM unnest(ARRAY[
        seq::text,
        id::text,
        -- whole seconds, then the microseconds of the second: exact
        (extract(epoch FROM date_trunc('second', at))::bigint * 1000000 + extract(microseconds FROM at)::bigint % 1000000)::text,
        actor, action, subject, detail::text]) WITH ORDINALITY AS t(f, n)
$$;
-- +goose StatementEnd

-- Owned by the owner role (SECURITY DEFINER): the role that serves requests
-- may insert audit rows but never touch the head.
-- +goose StatementBegin
CREATE FUNCTION audit_events_chain() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    prev public.audit_chain;
BEGIN
    -- Waits for a transaction that chained a row and has not ended; then
    -- reads the head it left (READ COMMITTED reads the latest version).
    SELECT * INTO STRICT prev FROM public.audit_chain FOR UPDATE;
    NEW.chain_seq := prev.seq + 1;
    NEW.hash := sha256(prev.hash || public.audit_row_content(NEW.chain_seq, NEW.id, NEW.at, NEW.actor, NEW.action, NEW.subject, NEW.detail));
    UPDATE public.audit_chain SET seq = NEW.chain_seq, hash = NEW.hash;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd

-- The rows written so far, chained in id order.
ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only;
-- +goose StatementBegin
DO $$
DECLARE
    r record;
    n bigint := 0;
    h bytea := decode(repeat('00', 32), 'hex');
BEGIN
    FOR r IN SELECT * FROM audit_events ORDER BY id LOOP
        n := n + 1;
        h := sha256(h || audit_row_content(n, r.id, r.at, r.actor, r.action, r.subject, r.detail));
        UPDATE audit_events SET chain_seq = n, hash = h WHERE id = r.id;
    END LOOP;
    INSERT INTO audit_chain (seq, hash) VALUES (n, h);
END;
$$;
-- +goose StatementEnd
ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only;

ALTER TABLE audit_events ALTER COLUMN chain_seq SET NOT NULL, ALTER COLUMN hash SET NOT NULL;
CREATE UNIQUE INDEX audit_events_chain_seq_idx ON audit_events (chain_seq);
CREATE TRIGGER audit_events_chain BEFORE INSERT ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_chain();

-- +goose Down
DROP TRIGGER audit_events_chain ON audit_events;
DROP INDEX audit_events_chain_seq_idx;
DROP FUNCTION audit_events_chain();
DROP FUNCTION audit_row_content(bigint, bigint, timestamptz, text, text, text, jsonb);
DROP TABLE audit_chain;
ALTER TABLE audit_events DROP COLUMN chain_seq, DROP COLUMN hash;
