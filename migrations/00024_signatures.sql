-- +goose Up

-- A signature is what a team taught the classifier (issue 23): a line that
-- means ready, a fatal error, an error the server survives, or the start of
-- a phase. The classifier consults the enabled ones in a launch's scope
-- after its built-in packs, at ingest and when a launch is reclassified.
CREATE TABLE signatures (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    meaning        text        NOT NULL CHECK (meaning IN ('ready', 'fatal', 'error', 'phase')),
    phase          text        NOT NULL DEFAULT '',
    kind           text        NOT NULL DEFAULT '',
    matcher        text        NOT NULL CHECK (matcher IN ('template', 'substring', 'regex')),
    pattern        text        NOT NULL,
    scope          text        NOT NULL CHECK (scope IN ('all', 'server', 'label')),
    scope_value    text        NOT NULL DEFAULT '',
    reason         text        NOT NULL CHECK (reason <> ''),
    author         text        NOT NULL,
    from_launch_id bigint, -- as rules.from_launch_id: no foreign key, a deleted launch leaves no link
    from_seq       bigint,
    -- lines it matched (the backtest's, the taught line): the tests of the
    -- pack export, at most a few
    examples       text[]      NOT NULL DEFAULT '{}',
    enabled        boolean     NOT NULL DEFAULT true,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);

-- The lines of each launch a signature matched, counted when the launch's
-- lines were classified (at ingest, rewritten by a reclassification): the
-- signature's hits and the launches it affected.
CREATE TABLE signature_hits (
    signature_id bigint      NOT NULL REFERENCES signatures (id) ON DELETE CASCADE,
    launch_id    bigint      NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    lines        bigint      NOT NULL,
    last_hit_at  timestamptz NOT NULL,
    PRIMARY KEY (launch_id, signature_id)
);
CREATE INDEX signature_hits_signature_idx ON signature_hits (signature_id);

-- Which classifier (the build and its packs) and which taught signatures
-- (those in the launch's scope) judged the launch last, and when it was last
-- reclassified on request.
ALTER TABLE launches ADD COLUMN judged_by text NOT NULL DEFAULT '';
ALTER TABLE launches ADD COLUMN signature_ids bigint[] NOT NULL DEFAULT '{}';
ALTER TABLE launches ADD COLUMN reclassified_at timestamptz;

-- +goose Down
ALTER TABLE launches DROP COLUMN reclassified_at;
ALTER TABLE launches DROP COLUMN signature_ids;
ALTER TABLE launches DROP COLUMN judged_by;
DROP TABLE signature_hits;
DROP TABLE signatures;
