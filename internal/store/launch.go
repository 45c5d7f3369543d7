package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"launchwatch/internal/launchid"
)

// launchid.Attrs are the attributes a shipper may give with any batch. Empty
// fields leave the stored value alone; labels are merged.
// Launch is a launch as shown by the API and the UI.
type Launch struct {
	ID              int64
	Key             string
	Name            string
	Server          string
	Host            string
	Labels          map[string]string
	Config          map[string]string
	Status          string
	Phase           string
	PhaseDone       int
	PhaseTotal      int
	LineCount       int64
	LastSeq         int64
	FirstLineAt     *time.Time
	LastLineAt      *time.Time
	ReadyAt         *time.Time
	ReadySeq        *int64
	ExitCode        *int
	ExitSignal      *string
	EndedAt         *time.Time
	LastHeartbeatAt *time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
	Alarms          int     // all alarms
	OpenAlarms      int     // alarms nobody has decided on yet
	FatalAlarms     int     // fatal alarms that are open or confirmed
	alarmCounts     []int64 // Alarms, OpenAlarms and FatalAlarms as scanned (dest)
	// SettleAt is when the launch's unsettled fatal alarms settle by time,
	// nil when none waits: until then its status is not a verdict yet.
	SettleAt *time.Time
	// PendingRuns: the launch's last lines are an ERROR run that a reader
	// asking for the verdict takes as last words (migrations/00007).
	PendingRuns bool
	// Endpoints are the addresses the server announced (migrations/00022).
	Endpoints []string
	// ServerDetected: Server is the family the classifier detected, not
	// one a shipper gave (migrations/00023).
	ServerDetected bool
	// JudgedBy names the classifier that judged the launch last, and
	// SignatureIDs the taught signatures in its scope then; ReclassifiedAt
	// is when it was last reclassified on request (migrations/00024).
	JudgedBy       string
	SignatureIDs   []int64
	ReclassifiedAt *time.Time
}

// EnsureLaunch returns the id of the launch with key, creating it with attrs
// when it does not exist, and makes sure its lines have a partition.
func (s *Store) EnsureLaunch(ctx context.Context, key string, attrs launchid.Attrs) (int64, error) {
	labels := attrs.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	// Look first: INSERT ... ON CONFLICT takes an id from the sequence even
	// when the launch exists, and ids must stay dense because they decide
	// the partition of the launch's lines.
	var id int64
	err := s.read(ctx).QueryRow(ctx, `SELECT id FROM launches WHERE key = $1`, key).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		if err := admitNewLaunch(ctx); err != nil {
			return 0, err // refused as is: the gate's error says why
		}
		err = s.read(ctx).QueryRow(ctx, `
			INSERT INTO launches (key, name, server, host, labels) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (key) DO NOTHING
			RETURNING id`, key, attrs.Name, attrs.Server, attrs.Host, labels).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) { // created by a concurrent first batch
			err = s.read(ctx).QueryRow(ctx, `SELECT id FROM launches WHERE key = $1`, key).Scan(&id)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("store: ensure launch: %w", err)
	}
	if err := s.ensureLinePartition(ctx, id); err != nil {
		return 0, err
	}
	return id, nil
}

const launchColumns = `
	l.id, l.key, l.name, l.server, l.host, l.labels, l.config, l.status, l.phase, l.phase_done, l.phase_total,
	l.line_count, l.last_seq, l.first_line_at, l.last_line_at, l.ready_at, l.ready_seq, l.exit_code,
	l.exit_signal, l.ended_at, l.last_heartbeat_at, l.created_at, l.updated_at,
	(SELECT ARRAY[count(*), count(*) FILTER (WHERE a.state = 'open'), count(*) FILTER (WHERE a.fatal AND a.state IN ('open', 'confirmed'))]
		FROM alarms a WHERE a.launch_id = l.id AND NOT a.withdrawn),
	l.settle_at, l.pending_runs, l.endpoints, l.server_detected, l.judged_by, l.signature_ids, l.reclassified_at`

// dest is where a row of launchColumns scans into, in order.
func (l *Launch) dest() []any {
	return []any{&l.ID, &l.Key, &l.Name, &l.Server, &l.Host, &l.Labels, &l.Config, &l.Status, &l.Phase,
		&l.PhaseDone, &l.PhaseTotal, &l.LineCount, &l.LastSeq, &l.FirstLineAt, &l.LastLineAt, &l.ReadyAt,
		&l.ReadySeq, &l.ExitCode, &l.ExitSignal, &l.EndedAt, &l.LastHeartbeatAt, &l.CreatedAt, &l.UpdatedAt,
		&l.alarmCounts, &l.SettleAt, &l.PendingRuns, &l.Endpoints, &l.ServerDetected,
		&l.JudgedBy, &l.SignatureIDs, &l.ReclassifiedAt}
}

func scanLaunch(row pgx.Row) (*Launch, error) {
	var l Launch
	err := row.Scan(l.dest()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	l.countAlarms()
	return &l, err
}

// countAlarms sets the alarm counts from what dest scanned: the three are
// one pass over the launch's alarms (three subqueries were three passes,
// 25 ms for a crash loop's 18,000 alarms).
func (l *Launch) countAlarms() {
	if len(l.alarmCounts) == 3 {
		l.Alarms, l.OpenAlarms, l.FatalAlarms = int(l.alarmCounts[0]), int(l.alarmCounts[1]), int(l.alarmCounts[2])
	}
	l.alarmCounts = nil
}

// LaunchByKey returns the launch with key, or ErrNotFound.
func (s *Store) LaunchByKey(ctx context.Context, key string) (*Launch, error) {
	l, err := scanLaunch(s.read(ctx).QueryRow(ctx, `SELECT `+launchColumns+` FROM launches l WHERE l.key = $1`, key))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("store: launch by key: %w", err)
	}
	return l, err
}

// LaunchForUpdate is what a batch needs to know about its launch, read under
// a row lock so that batches of one launch are applied one at a time.
type LaunchForUpdate struct {
	ID              int64
	Server          string
	ServerDetected  bool // Server is the detected family, not a shipper's (GivenServer)
	LastSeq         int64
	ClassifierState []byte
	ReadyAt         *time.Time
	ReadySeq        *int64     // the ready line the classifier found, nil if none (or ready by a probe)
	LastHeard       *time.Time // the last line's or heartbeat's arrival, nil if none yet
	ExitCode        *int
	ExitSignal      *string
	ExitRequested   bool
	Labels          map[string]string
	SettleAt        *time.Time
	PendingRuns     bool
	Status          string // the stored status
	Clock           LaunchClock
}

// GivenServer is the server family a shipper gave the launch, "" when none
// did (its Server may then be the family the classifier detected): the
// family a classifier is fixed to.
func (l *LaunchForUpdate) GivenServer() string {
	if l.ServerDetected {
		return ""
	}
	return l.Server
}

// LaunchClock is the launch clock's state that ingest keeps between batches.
type LaunchClock struct {
	Offset  time.Duration
	Source  string
	TZ      string
	Samples []int64 // received − logged of recent live batches, nanoseconds
	Logged  bool    // a line with a log time was seen
}

// Clock returns the clock of a launch: its offset, where it came from and
// the shipper's --tz (migrations/00009).
func (s *Store) Clock(ctx context.Context, launchID int64) (LaunchClock, error) {
	var c LaunchClock
	var offset int64
	err := s.read(ctx).QueryRow(ctx, `
		SELECT clock_offset, clock_source, clock_tz, clock_samples, clock_logged FROM launches WHERE id = $1`,
		launchID).Scan(&offset, &c.Source, &c.TZ, &c.Samples, &c.Logged)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, ErrNotFound
	}
	if err != nil {
		return c, fmt.Errorf("store: launch clock: %w", err)
	}
	c.Offset = time.Duration(offset)
	return c, nil
}

// LockLaunch locks the launch row until the transaction ends and returns it.
func (t *Tx) LockLaunch(ctx context.Context, id int64) (*LaunchForUpdate, error) {
	return t.readLaunch(ctx, id, " FOR UPDATE")
}

// ReadLaunch is LockLaunch without the lock, for a transaction that only
// reads (a backtest).
func (t *Tx) ReadLaunch(ctx context.Context, id int64) (*LaunchForUpdate, error) {
	return t.readLaunch(ctx, id, "")
}

func (t *Tx) readLaunch(ctx context.Context, id int64, lock string) (*LaunchForUpdate, error) {
	var l LaunchForUpdate
	var clockOffset, compacted int64
	err := t.tx.QueryRow(ctx, `
		SELECT id, server, server_detected, last_seq, classifier_state, ready_at, ready_seq, GREATEST(last_line_at, last_heartbeat_at),
			exit_code, exit_signal, exit_requested, labels, settle_at,
			pending_runs, status, clock_offset, clock_source, clock_tz, clock_samples, clock_logged, compacted_through
		FROM launches WHERE id = $1`+lock, id).
		Scan(&l.ID, &l.Server, &l.ServerDetected, &l.LastSeq, &l.ClassifierState, &l.ReadyAt, &l.ReadySeq, &l.LastHeard, &l.ExitCode, &l.ExitSignal, &l.ExitRequested,
			&l.Labels, &l.SettleAt, &l.PendingRuns, &l.Status, &clockOffset, &l.Clock.Source, &l.Clock.TZ, &l.Clock.Samples,
			&l.Clock.Logged, &compacted)
	l.Clock.Offset = time.Duration(clockOffset)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: lock launch: %w", err)
	}
	if t.compacted == nil {
		t.compacted = map[int64]int64{}
	}
	t.compacted[id] = compacted
	return &l, nil
}

// LaunchUpdate is the new state of a launch after a batch.
type LaunchUpdate struct {
	ID          int64
	Attrs       launchid.Attrs
	Config      map[string]string // merged into the stored configuration
	Status      string
	Phase       string
	PhaseDone   int
	PhaseTotal  int
	AddedLines  int64
	LastSeq     int64 // the highest seq stored
	FirstLineAt *time.Time
	LastLineAt  *time.Time
	ReadyAt     *time.Time // nil keeps the stored value (unless ClearReady)
	ReadySeq    *int64     // nil keeps the stored value (unless ClearReady)
	// ClearReady: the classifier took the stored readiness back (the
	// server never began to serve): ReadyAt and ReadySeq are written as
	// they are, nil included.
	ClearReady      bool
	ClassifierState []byte
	SettleAt        *time.Time // written as is: nil means nothing waits to settle
	PendingRuns     bool       // the last lines are an ERROR run (classify.Summary.PendingRuns)
	Clock           LaunchClock
	Endpoints       []string // the announced endpoints, written as they are (classify.Summary.Endpoints)
	// DetectedServer, when not nil and no shipper gave a server
	// (Attrs.Server is empty), is written as the launch's server, marked
	// detected: the family the classifier detected ("" when it knows none).
	DetectedServer *string
	// JudgedBy and SignatureIDs: the classifier and the taught signatures
	// that judged the batch ("" keeps the stored ones).
	JudgedBy     string
	SignatureIDs []int64
}

// SaveLaunch writes the state of a launch after a batch.
func (t *Tx) SaveLaunch(ctx context.Context, u LaunchUpdate) error {
	labels, config := u.Attrs.Labels, u.Config
	if labels == nil {
		labels = map[string]string{}
	}
	if config == nil {
		config = map[string]string{}
	}
	samples := u.Clock.Samples
	if samples == nil {
		samples = []int64{}
	}
	endpoints := u.Endpoints
	if endpoints == nil {
		endpoints = []string{}
	}
	sigIDs := u.SignatureIDs
	if sigIDs == nil {
		sigIDs = []int64{}
	}
	_, err := t.tx.Exec(ctx, `
		UPDATE launches SET
			name = CASE WHEN $2 <> '' THEN $2 ELSE name END,
			server = CASE WHEN $3 <> '' THEN $3 WHEN $27::text IS NOT NULL THEN $27 ELSE server END,
			server_detected = CASE WHEN $3 <> '' THEN false WHEN $27::text IS NOT NULL THEN $27 <> '' ELSE server_detected END,
			host = CASE WHEN $4 <> '' THEN $4 ELSE host END,
			labels = labels || $5,
			config = config || $6,
			status = $7, phase = $8, phase_done = $9, phase_total = $10,
			line_count = line_count + $11,
			last_seq = GREATEST(last_seq, $12),
			first_line_at = LEAST(first_line_at, $13),
			last_line_at = GREATEST(last_line_at, $14),
			ready_at = CASE WHEN $25 THEN $15 ELSE COALESCE($15, ready_at) END,
			ready_seq = CASE WHEN $25 THEN $16 ELSE COALESCE($16, ready_seq) END,
			classifier_state = $17,
			settle_at = $18, pending_runs = $19,
			clock_offset = $20, clock_source = $21, clock_tz = $22, clock_samples = $23, clock_logged = $24,
			endpoints = $26,
			judged_by = CASE WHEN $28 <> '' THEN $28 ELSE judged_by END,
			signature_ids = CASE WHEN $28 <> '' THEN $29 ELSE signature_ids END,
			updated_at = now()
		WHERE id = $1`,
		u.ID, u.Attrs.Name, u.Attrs.Server, u.Attrs.Host, labels, config, u.Status, u.Phase, u.PhaseDone,
		u.PhaseTotal, u.AddedLines, u.LastSeq, u.FirstLineAt, u.LastLineAt, u.ReadyAt, u.ReadySeq, u.ClassifierState, u.SettleAt, u.PendingRuns,
		int64(u.Clock.Offset), u.Clock.Source, u.Clock.TZ, samples, u.Clock.Logged, u.ClearReady, endpoints, u.DetectedServer,
		u.JudgedBy, sigIDs)
	if err != nil {
		return fmt.Errorf("store: save launch: %w", err)
	}
	return nil
}

// LastHeard is when the launch last showed a sign of life: a line, a
// heartbeat, or its creation.
func (l *Launch) LastHeard() time.Time {
	t := l.CreatedAt
	for _, u := range []*time.Time{l.LastLineAt, l.LastHeartbeatAt} {
		if u != nil && u.After(t) {
			t = *u
		}
	}
	return t
}
