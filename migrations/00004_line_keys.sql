-- +goose Up

-- line_keys makes seqless ingest idempotent. Loki pushes, OTLP exports and
-- native batches without "seq" carry no line number, and their clients
-- retry whole batches; like Loki, an entry with the same stream, timestamp
-- and text as one already stored is a duplicate. key is a hash of those
-- three (computed by internal/ingest) and seq the line it was stored as.
-- The batch transaction holds the launch's row lock while it looks keys up
-- and adds them, and the primary key backs that up. Partitioned like lines,
-- so retention drops a block of launches' keys with their lines.
CREATE TABLE line_keys (
    launch_id bigint NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    key       bytea  NOT NULL,
    seq       bigint NOT NULL,
    PRIMARY KEY (launch_id, key)
) PARTITION BY RANGE (launch_id);

-- One partition of line_keys beside each existing partition of lines, with
-- the same bounds; internal/store creates both for new blocks.
-- +goose StatementBegin
DO $$
DECLARE
    p record;
BEGIN
    FOR p IN
        SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'lines'::regclass
    LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF line_keys %s',
            'line_keys_' || substr(p.relname, length('lines_') + 1), p.bound);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP TABLE line_keys;
