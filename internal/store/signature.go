package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"launchwatch/internal/classify"
)

// Signature is a stored taught signature (migrations/00024).
type Signature struct {
	ID           int64
	Meaning      string // ready, fatal, error or phase
	Phase        string // with phase: the phase it begins
	Kind         string // with fatal and error: the alarm's kind; "" is other
	Matcher      string // template, substring or regex
	Pattern      string
	Scope        string // all, server or label
	ScopeValue   string // the server kind, or the label as name=value
	Reason       string
	Author       string
	FromLaunchID *int64 // the launch and line it was taught from, if any
	FromSeq      *int64
	Examples     []string // lines it matched: the pack export's tests
	Enabled      bool
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Hits         int64 // lines matched, over every launch
	Launches     int64 // launches with a matched line
	LastHitAt    *time.Time
}

// maxExamples bounds the lines kept with a signature.
const maxExamples = 5

// Classify returns the signature as the classifier compiles it.
func (s *Signature) Classify() classify.UserSignature {
	return classify.UserSignature{ID: s.ID, Meaning: s.Meaning, Phase: s.Phase, Kind: classify.AlarmKind(s.Kind),
		Matcher: s.Matcher, Pattern: s.Pattern}
}

// InScope reports whether the signature applies to a launch of server with
// labels, as SignaturesFor selects them.
func (s *Signature) InScope(server string, labels map[string]string) bool {
	switch s.Scope {
	case "all":
		return true
	case "server":
		return s.ScopeValue == server
	case "label":
		k, v, _ := strings.Cut(s.ScopeValue, "=")
		got, ok := labels[k]
		return ok && got == v
	}
	return false
}

// inSignatureScope is true for the launches l that signature s applies to.
const inSignatureScope = `(s.scope = 'all'
	OR (s.scope = 'server' AND l.server = s.scope_value)
	OR (s.scope = 'label' AND l.labels ->> split_part(s.scope_value, '=', 1) = substr(s.scope_value, strpos(s.scope_value, '=') + 1)))`

const signatureColumns = `s.id, s.meaning, s.phase, s.kind, s.matcher, s.pattern, s.scope, s.scope_value, s.reason, s.author,
	s.from_launch_id, s.from_seq, s.examples, s.enabled, s.created_at, s.updated_at,
	COALESCE(h.lines, 0), COALESCE(h.launches, 0), h.last_hit_at`

const signatureFrom = ` FROM signatures s LEFT JOIN LATERAL (
	SELECT sum(lines)::bigint AS lines, count(*) AS launches, max(last_hit_at) AS last_hit_at
	FROM signature_hits WHERE signature_id = s.id) h ON true`

func collectSignatures(rows pgx.Rows) ([]Signature, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Signature, error) {
		var s Signature
		err := row.Scan(&s.ID, &s.Meaning, &s.Phase, &s.Kind, &s.Matcher, &s.Pattern, &s.Scope, &s.ScopeValue, &s.Reason,
			&s.Author, &s.FromLaunchID, &s.FromSeq, &s.Examples, &s.Enabled, &s.CreatedAt, &s.UpdatedAt, &s.Hits, &s.Launches,
			&s.LastHitAt)
		return s, err
	})
}

// Signatures returns every signature, newest first.
func (s *Store) Signatures(ctx context.Context) ([]Signature, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+signatureColumns+signatureFrom+` ORDER BY s.id DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: signatures: %w", err)
	}
	out, err := collectSignatures(rows)
	if err != nil {
		return nil, fmt.Errorf("store: signatures: %w", err)
	}
	return out, nil
}

// SignatureByID returns one signature, or ErrNotFound.
func (s *Store) SignatureByID(ctx context.Context, id int64) (Signature, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+signatureColumns+signatureFrom+` WHERE s.id = $1`, id)
	if err != nil {
		return Signature{}, fmt.Errorf("store: signature: %w", err)
	}
	out, err := collectSignatures(rows)
	if err != nil {
		return Signature{}, fmt.Errorf("store: signature: %w", err)
	}
	if len(out) == 0 {
		return Signature{}, ErrNotFound
	}
	return out[0], nil
}

// signaturesForSQL selects the enabled signatures in the scope of a launch
// of server $1 with labels $2, oldest first: their order is the order the
// classifier consults them in.
const signaturesForSQL = `SELECT s.id, s.meaning, s.phase, s.kind, s.matcher, s.pattern, s.scope, s.scope_value
	FROM signatures s, (SELECT $1::text AS server, $2::jsonb AS labels) l
	WHERE s.enabled AND ` + inSignatureScope + ` ORDER BY s.id`

func collectInForce(rows pgx.Rows) ([]Signature, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Signature, error) {
		s := Signature{Enabled: true}
		err := row.Scan(&s.ID, &s.Meaning, &s.Phase, &s.Kind, &s.Matcher, &s.Pattern, &s.Scope, &s.ScopeValue)
		return s, err
	})
}

func labelsJSON(labels map[string]string) map[string]string {
	if labels == nil {
		return map[string]string{}
	}
	return labels
}

// SignaturesFor returns the enabled signatures that apply to a launch of
// server with labels, in the order the classifier consults them.
func (t *Tx) SignaturesFor(ctx context.Context, server string, labels map[string]string) ([]Signature, error) {
	rows, err := t.tx.Query(ctx, signaturesForSQL, server, labelsJSON(labels))
	if err != nil {
		return nil, fmt.Errorf("store: signatures in force: %w", err)
	}
	out, err := collectInForce(rows)
	if err != nil {
		return nil, fmt.Errorf("store: signatures in force: %w", err)
	}
	return out, nil
}

// SignaturesFor is Tx.SignaturesFor outside a transaction.
func (s *Store) SignaturesFor(ctx context.Context, server string, labels map[string]string) ([]Signature, error) {
	rows, err := s.pool.Query(ctx, signaturesForSQL, server, labelsJSON(labels))
	if err != nil {
		return nil, fmt.Errorf("store: signatures in force: %w", err)
	}
	out, err := collectInForce(rows)
	if err != nil {
		return nil, fmt.Errorf("store: signatures in force: %w", err)
	}
	return out, nil
}

// InsertSignature stores a new signature and returns its id.
func (t *Tx) InsertSignature(ctx context.Context, s Signature) (int64, error) {
	examples := s.Examples
	if examples == nil {
		examples = []string{}
	}
	var id int64
	err := t.tx.QueryRow(ctx, `
		INSERT INTO signatures (meaning, phase, kind, matcher, pattern, scope, scope_value, reason, author,
			from_launch_id, from_seq, examples, enabled)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, true) RETURNING id`,
		s.Meaning, s.Phase, s.Kind, s.Matcher, s.Pattern, s.Scope, s.ScopeValue, s.Reason, s.Author,
		s.FromLaunchID, s.FromSeq, examples[:min(len(examples), maxExamples)]).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: insert signature: %w", err)
	}
	return id, nil
}

// UpdateSignature enables or disables a signature and rewrites its reason
// (nil keeps either); ErrNotFound if there is none.
func (t *Tx) UpdateSignature(ctx context.Context, id int64, enabled *bool, reason *string) error {
	tag, err := t.tx.Exec(ctx, `
		UPDATE signatures SET enabled = COALESCE($2, enabled), reason = COALESCE($3, reason), updated_at = now()
		WHERE id = $1`, id, enabled, reason)
	if err != nil {
		return fmt.Errorf("store: update signature: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

// LockSignature locks a signature's row for the rest of the transaction
// and returns it as stored; ErrNotFound if there is none.
func (t *Tx) LockSignature(ctx context.Context, id int64) (Signature, error) {
	s := Signature{ID: id}
	err := t.tx.QueryRow(ctx, `
		SELECT meaning, phase, kind, matcher, pattern, scope, scope_value, reason, author, enabled
		FROM signatures WHERE id = $1 FOR UPDATE`, id).
		Scan(&s.Meaning, &s.Phase, &s.Kind, &s.Matcher, &s.Pattern, &s.Scope, &s.ScopeValue, &s.Reason, &s.Author, &s.Enabled)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, ErrNotFound
	}
	if err != nil {
		return s, fmt.Errorf("store: lock signature: %w", err)
	}
	return s, nil
}

// SignatureHits are the lines of one launch the signatures matched, by
// signature id, and an example line of each.
type SignatureHits struct {
	Lines    map[int64]int64
	Examples map[int64]string
}

// Add counts one line a signature matched.
func (h *SignatureHits) Add(id int64, text string) {
	if h.Lines == nil {
		h.Lines, h.Examples = map[int64]int64{}, map[int64]string{}
	}
	h.Lines[id]++
	if _, ok := h.Examples[id]; !ok {
		h.Examples[id] = text
	}
}

// maxExampleBytes bounds an example line kept with a signature.
const maxExampleBytes = 2000

// CountSignatureHits adds the lines a batch matched to the launch's hits
// or, with replace (a reclassification), makes them its hits: the
// launch's rows of other signatures are removed. A signature with fewer
// than maxExamples example lines keeps the new one.
func (t *Tx) CountSignatureHits(ctx context.Context, launchID int64, h SignatureHits, at time.Time, replace bool) error {
	if replace {
		ids := make([]int64, 0, len(h.Lines))
		for id := range h.Lines {
			ids = append(ids, id)
		}
		if _, err := t.tx.Exec(ctx, `DELETE FROM signature_hits WHERE launch_id = $1 AND NOT signature_id = ANY($2)`,
			launchID, ids); err != nil {
			return fmt.Errorf("store: signature hits: %w", err)
		}
	}
	if len(h.Lines) == 0 {
		return nil
	}
	// In id order, so two batches counting the same signatures take their
	// row locks alike.
	ids := make([]int64, 0, len(h.Lines))
	for id := range h.Lines {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	batch := &pgx.Batch{}
	for _, id := range ids {
		batch.Queue(`
			INSERT INTO signature_hits (signature_id, launch_id, lines, last_hit_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (launch_id, signature_id) DO UPDATE SET
				lines = CASE WHEN $5 THEN EXCLUDED.lines ELSE signature_hits.lines + EXCLUDED.lines END,
				last_hit_at = EXCLUDED.last_hit_at`, id, launchID, h.Lines[id], at, replace)
		ex := h.Examples[id]
		if len(ex) > maxExampleBytes {
			ex = strings.ToValidUTF8(ex[:maxExampleBytes], "")
		}
		batch.Queue(`
			UPDATE signatures SET examples = examples || $2::text
			WHERE id = $1 AND cardinality(examples) < $3 AND NOT $2::text = ANY(examples)`, id, ex, maxExamples)
	}
	if err := t.tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("store: signature hits: %w", err)
	}
	return nil
}

// SignatureHit is what one signature matched in one launch.
type SignatureHit struct {
	SignatureID int64
	Meaning     string
	Pattern     string
	Lines       int64
}

// SignaturesJudging returns the signatures of ids (those in a launch's
// scope when it was judged) and those that matched lines of the launch,
// with the lines each matched there, by id.
func (s *Store) SignaturesJudging(ctx context.Context, launchID int64, ids []int64) ([]SignatureHit, error) {
	if ids == nil {
		ids = []int64{}
	}
	rows, err := s.pool.Query(ctx, `
		SELECT s.id, s.meaning, s.pattern, COALESCE(h.lines, 0)
		FROM signatures s LEFT JOIN signature_hits h ON h.signature_id = s.id AND h.launch_id = $1
		WHERE s.id = ANY($2) OR h.lines IS NOT NULL ORDER BY s.id`, launchID, ids)
	if err != nil {
		return nil, fmt.Errorf("store: signatures judging: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (SignatureHit, error) {
		var h SignatureHit
		return h, row.Scan(&h.SignatureID, &h.Meaning, &h.Pattern, &h.Lines)
	})
	if err != nil {
		return nil, fmt.Errorf("store: signatures judging: %w", err)
	}
	return out, nil
}
