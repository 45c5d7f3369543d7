-- +goose Up

-- People who sign in. A user made by a reverse proxy's header has no
-- password: only the proxy can sign them in.
CREATE TABLE users (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name          text        NOT NULL CHECK (name <> ''),
    role          text        NOT NULL CHECK (role IN ('viewer', 'reviewer', 'admin')),
    password_hash text,
    disabled      boolean     NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now(),
    created_by    text        NOT NULL DEFAULT ''
);
-- Names compare case-insensitively: Alice and alice are one person.
CREATE UNIQUE INDEX users_name_idx ON users (lower(name));

-- A browser session. Only the SHA-256 of the cookie's secret is stored, so
-- a copy of the database signs nobody in.
CREATE TABLE sessions (
    secret_hash  bytea       PRIMARY KEY,
    user_id      bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL
);
CREATE INDEX sessions_user_idx ON sessions (user_id);
CREATE INDEX sessions_expiry_idx ON sessions (expires_at);

-- API tokens: the secret is shown once and stored as its SHA-256 (a token
-- is 32 random bytes, so a fast hash is enough).
CREATE TABLE api_tokens (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name         text        NOT NULL CHECK (name <> ''),
    scope        text        NOT NULL CHECK (scope IN ('ingest', 'read', 'review', 'admin')),
    secret_hash  bytea       NOT NULL UNIQUE,
    created_by   text        NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz,
    last_used_at timestamptz,
    revoked_at   timestamptz,
    -- The token --bootstrap-token keeps: at most one, replaced when the
    -- configured secret changes.
    bootstrap    boolean     NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX api_tokens_bootstrap_idx ON api_tokens (bootstrap) WHERE bootstrap AND revoked_at IS NULL;

-- The one-time link that creates the first admin. A new start without
-- users replaces it.
CREATE TABLE setup_links (
    secret_hash bytea       PRIMARY KEY,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz
);

-- Secrets the server keeps for itself (the CSRF key), shared by every web
-- process on the database.
CREATE TABLE server_secrets (
    name  text  PRIMARY KEY,
    value bytea NOT NULL
);

-- Nothing edits the audit log: it is appended to, never changed.
-- +goose StatementBegin
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_events is append-only';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
CREATE INDEX audit_events_actor_idx ON audit_events (actor, id);

-- +goose Down
DROP INDEX audit_events_actor_idx;
DROP TRIGGER audit_events_no_truncate ON audit_events;
DROP TRIGGER audit_events_append_only ON audit_events;
DROP FUNCTION audit_events_append_only();
DROP TABLE server_secrets;
DROP TABLE setup_links;
DROP TABLE api_tokens;
DROP TABLE sessions;
DROP TABLE users;
