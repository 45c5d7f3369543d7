-- +goose Up

-- A launch is one start of an inference server, identified by the key its
-- shipper chose. Status and phase are kept current by ingest so list pages
-- never have to scan lines; classifier_state lets the next batch continue
-- the streaming classification in any web process.
CREATE TABLE launches (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key               text        NOT NULL UNIQUE,
    name              text        NOT NULL DEFAULT '',
    server            text        NOT NULL DEFAULT '',
    host              text        NOT NULL DEFAULT '',
    labels            jsonb       NOT NULL DEFAULT '{}',
    config            jsonb       NOT NULL DEFAULT '{}',
    status            text        NOT NULL DEFAULT 'starting'
        CHECK (status IN ('starting', 'loading', 'ready', 'alarm', 'crashed', 'exited', 'silent')),
    phase             text        NOT NULL DEFAULT '',
    phase_done        integer     NOT NULL DEFAULT 0,
    phase_total       integer     NOT NULL DEFAULT 0,
    line_count        bigint      NOT NULL DEFAULT 0,
    last_seq          bigint      NOT NULL DEFAULT 0,
    first_line_at     timestamptz,
    last_line_at      timestamptz,
    ready_at          timestamptz,
    ready_seq         bigint,
    exit_code         integer,
    exit_signal       text,
    ended_at          timestamptz,
    last_heartbeat_at timestamptz,
    classifier_state  bytea,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX launches_created_at_idx ON launches (created_at DESC);
CREATE INDEX launches_status_idx ON launches (status);
CREATE INDEX launches_labels_idx ON launches USING gin (labels);

-- Lines are identified by (launch_id, seq): the shipper assigns seq, so a
-- retried batch is stored once. The table is range-partitioned by launch_id
-- in blocks of launches (ids grow with time), so retention drops whole
-- partitions instead of deleting rows; every key leads with launch_id so a
-- distributed Postgres can shard by launch. Partitions are created on demand
-- by internal/store.
CREATE TABLE lines (
    launch_id   bigint      NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    seq         bigint      NOT NULL CHECK (seq > 0),
    ts          timestamptz NOT NULL,
    received_at timestamptz NOT NULL,
    stream      text        NOT NULL DEFAULT '',
    kind        text        NOT NULL DEFAULT 'plain',
    level       text        NOT NULL DEFAULT '',
    rank        text        NOT NULL DEFAULT '',
    alarm_no    integer,
    text        text        NOT NULL,
    PRIMARY KEY (launch_id, seq)
) PARTITION BY RANGE (launch_id);

-- An alarm is one error event found by the classifier (a whole traceback,
-- one OOM), numbered within its launch. Its review state is owned by people
-- and rules, its extent by the classifier.
CREATE TABLE alarms (
    launch_id    bigint      NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    alarm_no     integer     NOT NULL,
    first_seq    bigint      NOT NULL,
    last_seq     bigint      NOT NULL,
    kind         text        NOT NULL,
    fatal        boolean     NOT NULL,
    headline     text        NOT NULL,
    headline_seq bigint      NOT NULL,
    template     text        NOT NULL,
    fingerprint  text        NOT NULL,
    ranks        integer     NOT NULL DEFAULT 1,
    occurred_at  timestamptz,
    state        text        NOT NULL DEFAULT 'open'
        CHECK (state IN ('open', 'confirmed', 'dismissed', 'suppressed')),
    rule_id      bigint,
    decided_by   text,
    decided_at   timestamptz,
    reason       text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (launch_id, alarm_no)
);
CREATE INDEX alarms_fingerprint_idx ON alarms (fingerprint);
CREATE INDEX alarms_open_idx ON alarms (state) WHERE state = 'open';

-- A rule suppresses alarms that a person judged false, wherever they recur.
CREATE TABLE rules (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    matcher        text        NOT NULL CHECK (matcher IN ('template', 'substring', 'regex')),
    pattern        text        NOT NULL,
    scope          text        NOT NULL DEFAULT 'all' CHECK (scope IN ('all', 'server', 'label')),
    scope_value    text        NOT NULL DEFAULT '',
    reason         text        NOT NULL CHECK (reason <> ''),
    author         text        NOT NULL,
    from_launch_id bigint,
    from_alarm_no  integer,
    expires_at     timestamptz,
    enabled        boolean     NOT NULL DEFAULT true,
    override_reason text,
    hits           bigint      NOT NULL DEFAULT 0,
    last_hit_at    timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE alarms ADD CONSTRAINT alarms_rule_fk FOREIGN KEY (rule_id) REFERENCES rules (id) ON DELETE SET NULL;

-- Incidents group launches for a post-mortem.
CREATE TABLE incidents (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title      text        NOT NULL,
    status     text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
    summary    text        NOT NULL DEFAULT '',
    created_by text        NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE incident_launches (
    incident_id bigint NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    launch_id   bigint NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    PRIMARY KEY (incident_id, launch_id)
);

-- An annotation is a person's note on a launch (at a line or a time) or on an incident.
CREATE TABLE annotations (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    launch_id   bigint REFERENCES launches (id) ON DELETE CASCADE,
    incident_id bigint REFERENCES incidents (id) ON DELETE CASCADE,
    seq         bigint,
    at          timestamptz,
    author      text        NOT NULL,
    body        text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CHECK (launch_id IS NOT NULL OR incident_id IS NOT NULL)
);
CREATE INDEX annotations_launch_idx ON annotations (launch_id);

-- Every decision and rule change: who, when, what, why.
CREATE TABLE audit_events (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    actor      text        NOT NULL,
    action     text        NOT NULL,
    subject    text        NOT NULL,
    detail     jsonb       NOT NULL DEFAULT '{}'
);

-- +goose Down
DROP TABLE audit_events;
DROP TABLE annotations;
DROP TABLE incident_launches;
DROP TABLE incidents;
ALTER TABLE alarms DROP CONSTRAINT alarms_rule_fk;
DROP TABLE rules;
DROP TABLE alarms;
DROP TABLE lines;
DROP TABLE launches;
