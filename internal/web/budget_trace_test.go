package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// statementLog records the statements the server's pool runs while it is
// on, each with its arguments and time: what a page load spends in SQL.
type statementLog struct {
	mu    sync.Mutex
	on    bool
	stmts []tracedStatement
}

type tracedStatement struct {
	sql  string
	args []any
	took time.Duration
}

type statementStart struct{}

func (s *statementLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.mu.Lock()
	on := s.on
	s.mu.Unlock()
	if !on {
		return ctx
	}
	return context.WithValue(ctx, statementStart{}, &tracedStatement{sql: d.SQL, args: d.Args, took: -time.Duration(time.Now().UnixNano())})
}

func (s *statementLog) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	st, ok := ctx.Value(statementStart{}).(*tracedStatement)
	if !ok {
		return
	}
	st.took += time.Duration(time.Now().UnixNano())
	s.mu.Lock()
	s.stmts = append(s.stmts, *st)
	s.mu.Unlock()
}

// record runs fn with the log on and returns the statements it ran.
func (s *statementLog) record(fn func()) []tracedStatement {
	s.mu.Lock()
	s.on, s.stmts = true, nil
	s.mu.Unlock()
	fn()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = false
	return s.stmts
}

// sqlTime is the statements' total time.
func sqlTime(stmts []tracedStatement) time.Duration {
	var t time.Duration
	for _, st := range stmts {
		t += st.took
	}
	return t
}

// firstWords is a statement's text on one line, cut to n characters.
func firstWords(sql string, n int) string {
	s := strings.Join(strings.Fields(sql), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// printStatements prints the slowest statements of a request, and with
// BUDGET_EXPLAIN=dir writes each one's EXPLAIN (ANALYZE, BUFFERS) to
// dir/explain-name.txt.
func printStatements(b *testing.B, pool *pgxpool.Pool, name string, stmts []tracedStatement, total time.Duration) {
	b.Helper()
	fmt.Printf("budgets: %s: %d statements, %s in SQL of %s\n", name, len(stmts),
		sqlTime(stmts).Round(time.Microsecond*100), total.Round(time.Microsecond*100))
	byTime := slices.Clone(stmts)
	slices.SortStableFunc(byTime, func(x, y tracedStatement) int { return int(y.took - x.took) })
	for _, st := range byTime[:min(len(byTime), 6)] {
		fmt.Printf("budgets:   %7.1f ms  %s\n", ms(st.took), firstWords(st.sql, 110))
	}
	dir := os.Getenv("BUDGET_EXPLAIN")
	if dir == "" {
		return
	}
	var out strings.Builder
	for _, st := range byTime {
		fmt.Fprintf(&out, "-- %.1f ms\n%s\n-- args %v\n", ms(st.took), strings.TrimSpace(st.sql), st.args)
		if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(st.sql)), "SELECT") &&
			!strings.HasPrefix(strings.ToUpper(strings.TrimSpace(st.sql)), "WITH") {
			out.WriteString("(not explained)\n\n")
			continue
		}
		rows, err := pool.Query(context.Background(), "EXPLAIN (ANALYZE, BUFFERS) "+st.sql, st.args...)
		if err != nil {
			fmt.Fprintf(&out, "explain: %v\n\n", err)
			continue
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				b.Fatal(err)
			}
			out.WriteString(line + "\n")
		}
		if err := rows.Err(); err != nil {
			fmt.Fprintf(&out, "explain: %v\n", err)
		}
		out.WriteString("\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "explain-"+name+".txt"), []byte(out.String()), 0o644); err != nil {
		b.Fatal(err)
	}
}

// profilePages profiles the process's CPU (the server's handlers and the
// client alike) until the function it returns is called, into the file
// BUDGET_CPUPROFILE names: the profile of the launch page's loads alone,
// without the ingest that -cpuprofile would mostly show.
func profilePages(b *testing.B) (stop func()) {
	b.Helper()
	path := os.Getenv("BUDGET_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
