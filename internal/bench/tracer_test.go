package bench_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// sqlTimes sums the time of every statement a pool runs, by statement (its
// first words), as a pgx tracer: where ingest's database time goes.
type sqlTimes struct {
	mu    sync.Mutex
	total map[string]time.Duration
	cpu   map[string]time.Duration // the backend's CPU time in the statement
	count map[string]int
}

type sqlStartKey struct{}

type sqlStart struct {
	at   time.Time
	name string
	pid  int
	cpu  time.Duration
}

var spaces = regexp.MustCompile(`\s+`)

func statementName(sql string) string {
	s := strings.TrimSpace(spaces.ReplaceAllString(sql, " "))
	if len(s) > 48 {
		s = s[:48]
	}
	return s
}

func (t *sqlTimes) start(ctx context.Context, conn *pgx.Conn, name string) context.Context {
	pid := int(conn.PgConn().PID())
	cpu, _ := processCPU(pid)
	return context.WithValue(ctx, sqlStartKey{}, sqlStart{at: time.Now(), name: name, pid: pid, cpu: cpu})
}

func (t *sqlTimes) end(ctx context.Context) {
	s, ok := ctx.Value(sqlStartKey{}).(sqlStart)
	if !ok {
		return
	}
	took := time.Since(s.at)
	cpu, _ := processCPU(s.pid)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.total == nil {
		t.total, t.cpu, t.count = map[string]time.Duration{}, map[string]time.Duration{}, map[string]int{}
	}
	t.total[s.name] += took
	t.cpu[s.name] += cpu - s.cpu
	t.count[s.name]++
}

func (t *sqlTimes) TraceQueryStart(ctx context.Context, conn *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	return t.start(ctx, conn, statementName(d.SQL))
}

func (t *sqlTimes) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	t.end(ctx)
}

func (t *sqlTimes) TraceCopyFromStart(ctx context.Context, conn *pgx.Conn, d pgx.TraceCopyFromStartData) context.Context {
	return t.start(ctx, conn, "COPY "+d.TableName.Sanitize())
}

func (t *sqlTimes) TraceCopyFromEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromEndData) {
	t.end(ctx)
}

// top is the n statements that took longest, with their share of whole.
func (t *sqlTimes) top(n int, whole time.Duration) (string, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	names := make([]string, 0, len(t.total))
	var sum time.Duration
	for k, d := range t.total {
		names = append(names, k)
		sum += d
	}
	slices.SortFunc(names, func(a, b string) int { return int(t.total[b] - t.total[a]) })
	var parts []string
	for _, k := range names[:min(n, len(names))] {
		parts = append(parts, fmt.Sprintf("%q ×%d %s (%.0f%%, database cpu %s)", k, t.count[k], t.total[k].Round(time.Millisecond),
			100*t.total[k].Seconds()/whole.Seconds(), t.cpu[k].Round(10*time.Millisecond)))
	}
	return strings.Join(parts, "; "), sum
}
