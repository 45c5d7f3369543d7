-- +goose Up

-- Incidents (from 00001) become a team's working record: a severity, an
-- owner, a status that moves investigating → mitigated → resolved (each
-- change timed and attributed in incident_status_changes), and the
-- post-mortem fields people write (summary, root cause, resolution). The
-- rest of a post-mortem is generated from the launches at read time.
ALTER TABLE incidents DROP CONSTRAINT incidents_status_check;
UPDATE incidents SET status = 'investigating' WHERE status = 'open';
ALTER TABLE incidents
    ALTER COLUMN status SET DEFAULT 'investigating',
    ADD CONSTRAINT incidents_status_check CHECK (status IN ('investigating', 'mitigated', 'resolved')),
    ADD COLUMN severity   text NOT NULL DEFAULT 'sev3' CHECK (severity IN ('sev1', 'sev2', 'sev3', 'sev4')),
    ADD COLUMN owner      text NOT NULL DEFAULT '',
    ADD COLUMN root_cause text NOT NULL DEFAULT '',
    ADD COLUMN resolution text NOT NULL DEFAULT '';
CREATE INDEX incidents_created_at_idx ON incidents (created_at DESC);

-- Who added a launch to an incident, and when.
ALTER TABLE incident_launches
    ADD COLUMN added_by text        NOT NULL DEFAULT '',
    ADD COLUMN added_at timestamptz NOT NULL DEFAULT clock_timestamp(); -- distinct within a transaction: the order keys were given
CREATE INDEX incident_launches_launch_idx ON incident_launches (launch_id);

-- Every status an incident took, with who set it and when; the first row
-- is the status it was opened with.
CREATE TABLE incident_status_changes (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    incident_id bigint      NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    status      text        NOT NULL CHECK (status IN ('investigating', 'mitigated', 'resolved')),
    actor       text        NOT NULL,
    at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX incident_status_changes_incident_idx ON incident_status_changes (incident_id, id);

-- Notes on an incident are annotations (00001) with an incident_id; an
-- edit keeps the text it replaced here, so the page can show the history.
CREATE TABLE annotation_revisions (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    annotation_id bigint      NOT NULL REFERENCES annotations (id) ON DELETE CASCADE,
    body          text        NOT NULL, -- the text before the edit
    author        text        NOT NULL, -- who wrote that text
    written_at    timestamptz NOT NULL, -- when that text was written
    edited_by     text        NOT NULL, -- who replaced it
    edited_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX annotation_revisions_annotation_idx ON annotation_revisions (annotation_id, id);
CREATE INDEX annotations_incident_idx ON annotations (incident_id) WHERE incident_id IS NOT NULL;

-- A post-mortem's action items: an editable checklist.
CREATE TABLE incident_action_items (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    incident_id bigint      NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    body        text        NOT NULL CHECK (body <> ''),
    done        boolean     NOT NULL DEFAULT false,
    created_by  text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    done_by     text,
    done_at     timestamptz
);
CREATE INDEX incident_action_items_incident_idx ON incident_action_items (incident_id, id);

-- +goose Down
DROP TABLE incident_action_items;
DROP INDEX annotations_incident_idx;
DROP TABLE annotation_revisions;
DROP TABLE incident_status_changes;
DROP INDEX incident_launches_launch_idx;
ALTER TABLE incident_launches DROP COLUMN added_by, DROP COLUMN added_at;
DROP INDEX incidents_created_at_idx;
ALTER TABLE incidents DROP CONSTRAINT incidents_status_check;
UPDATE incidents SET status = 'open' WHERE status <> 'resolved';
ALTER TABLE incidents
    DROP COLUMN severity, DROP COLUMN owner, DROP COLUMN root_cause, DROP COLUMN resolution,
    ALTER COLUMN status SET DEFAULT 'open',
    ADD CONSTRAINT incidents_status_check CHECK (status IN ('open', 'resolved'));
