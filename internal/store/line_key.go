package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// LineKey is the duplicate key of a line that came without a seq (a hash
// of its stream, timestamp and text) and the seq it was stored as.
type LineKey struct {
	Key []byte
	Seq int64
}

// ExistingLineKeys returns which of keys are stored for the launch already,
// as a set of their string forms.
func (t *Tx) ExistingLineKeys(ctx context.Context, launchID int64, keys [][]byte) (map[string]bool, error) {
	if len(keys) == 0 {
		return map[string]bool{}, nil
	}
	rows, err := t.tx.Query(ctx, `SELECT key FROM line_keys WHERE launch_id = $1 AND key = ANY($2)`, launchID, keys)
	if err != nil {
		return nil, fmt.Errorf("store: existing line keys: %w", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return nil, fmt.Errorf("store: existing line keys: %w", err)
	}
	m := make(map[string]bool, len(found))
	for _, k := range found {
		m[string(k)] = true
	}
	return m, nil
}

// CopyLineKeys records the duplicate keys of newly stored lines. The caller
// holds the launch's lock and has checked that none is stored yet.
func (t *Tx) CopyLineKeys(ctx context.Context, launchID int64, keys []LineKey) error {
	if len(keys) == 0 {
		return nil
	}
	_, err := t.tx.CopyFrom(ctx, pgx.Identifier{"line_keys"}, []string{"launch_id", "key", "seq"},
		pgx.CopyFromSlice(len(keys), func(i int) ([]any, error) {
			return []any{launchID, keys[i].Key, keys[i].Seq}, nil
		}))
	if err != nil {
		return fmt.Errorf("store: copy line keys: %w", err)
	}
	return nil
}
