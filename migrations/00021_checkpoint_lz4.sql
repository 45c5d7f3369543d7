-- +goose Up

-- A classifier checkpoint is a few kilobytes of JSON, one every 256 lines
-- ingested, and TOAST compresses every one of them inside ingest's
-- transaction. lz4 compresses it several times faster than the default
-- pglz (and reads it back faster when a gap fill restores one), at about
-- the same size: the rows written from now on use it.
ALTER TABLE classifier_checkpoints ALTER COLUMN state SET COMPRESSION lz4;

-- +goose Down
ALTER TABLE classifier_checkpoints ALTER COLUMN state SET COMPRESSION default;
