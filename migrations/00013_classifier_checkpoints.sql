-- +goose Up

-- classifier_checkpoints are snapshots of a launch's classifier state
-- (classify.State, as saved in launches.classifier_state) taken by ingest
-- every so many lines: state is the state after the line with seq. A batch
-- that fills a gap reclassifies from the checkpoint before the gap and stops
-- at the first later checkpoint whose state its own equals again, instead
-- of reclassifying the whole launch.
CREATE TABLE classifier_checkpoints (
    launch_id bigint NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    seq       bigint NOT NULL,
    state     bytea  NOT NULL,
    PRIMARY KEY (launch_id, seq)
);

-- +goose Down
DROP TABLE classifier_checkpoints;
