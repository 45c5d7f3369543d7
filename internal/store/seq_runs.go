package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SeqRun is a run of consecutive seqs a launch holds, From through To.
type SeqRun struct {
	From, To int64
}

// seqRunsSQL finds the runs of consecutive seqs after $2 (gaps and
// islands: within a run, seq minus its rank is constant), reading the seq
// column alone wherever the lines are stored, rows or blocks.
var seqRunsSQL = `
	SELECT min(seq), max(seq) FROM (
		SELECT seq, seq - row_number() OVER (ORDER BY seq) AS island
		FROM (` + lineRead{launch: "$1", lo: "$2::bigint + 1", cols: []string{"seq"}}.sql() + `) s
	) r
	GROUP BY island ORDER BY 1 LIMIT $3`

// SeqRuns returns up to limit runs of consecutive seqs stored for the
// launch after seq after, in order: what a shipper that numbered its lines
// compares with what it sent, to find lines the server no longer holds (a
// database restored from an older copy, a lagging standby promoted). It
// reads what the lines are, not the launch's counters, which a restore
// rolls back with them.
func (s *Store) SeqRuns(ctx context.Context, launchID, after int64, limit int) ([]SeqRun, error) {
	rows, err := s.pool.Query(ctx, seqRunsSQL, launchID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("store: seq runs: %w", err)
	}
	runs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (SeqRun, error) {
		var r SeqRun
		err := row.Scan(&r.From, &r.To)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: seq runs: %w", err)
	}
	return runs, nil
}

// historySQL identifies the history of the database the store writes to:
// the cluster's system identifier (a new cluster, one restored from a
// dump, has another), its timeline (a promoted standby, a point-in-time
// recovery start a new one; on a primary the current WAL file's name says
// it at once, where the control file's checkpoint would lag until the next
// checkpoint) and the database's OID (a database dropped and restored, or
// another one renamed in its place, has another).
const historySQL = `
	SELECT s.system_identifier::text,
		CASE WHEN pg_is_in_recovery() THEN (SELECT timeline_id FROM pg_control_checkpoint())
			ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int END,
		d.oid::bigint
	FROM pg_control_system() s, pg_database d WHERE d.datname = current_database()`

// History is the identity of the database's history, as
// "system=S; timeline=T; database=D". Lines acknowledged by a server whose
// history then changes may be gone: shippers that see it change check what
// the server still holds.
func (s *Store) History(ctx context.Context) (string, error) {
	var system string
	var timeline, oid int64
	if err := s.pool.QueryRow(ctx, historySQL).Scan(&system, &timeline, &oid); err != nil {
		return "", fmt.Errorf("store: database history: %w", err)
	}
	return fmt.Sprintf("system=%s; timeline=%d; database=%d", system, timeline, oid), nil
}
