package web_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// launchStatements counts the statements that name one launch (by id or
// key) among their arguments.
type launchStatements struct {
	id  atomic.Int64
	key atomic.Value // string
	n   atomic.Int64
}

func (s *launchStatements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	key, _ := s.key.Load().(string)
	for _, a := range d.Args {
		if v, ok := a.(int64); ok && v == s.id.Load() || a == key && key != "" {
			s.n.Add(1)
			break
		}
	}
	return ctx
}

func (s *launchStatements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TestLaunchPageStatementsDoNotGrowWithAlarms: the launch page reads a
// launch with twenty alarms in as many statements as one with one alarm
// (its read model reads every alarm card's lines at once, not a query an
// alarm).
func TestLaunchPageStatementsDoNotGrowWithAlarms(t *testing.T) {
	t.Parallel()
	count := &launchStatements{}
	srv := webtest.Start(t, web.Config{}, webtest.WithTracer(count))
	b := &testBundle{t: t, url: srv.URL, store: srv.Store, srv: srv}
	statements := map[int]int64{}
	for _, alarms := range []int{1, 20} {
		key := fmt.Sprintf("alarms-%d", alarms)
		var log strings.Builder
		log.WriteString("INFO:     Started server process [1]\n")
		for i := range alarms {
			fmt.Fprintf(&log, "ERROR: request %d failed\nTraceback (most recent call last):\n  File \"app.py\", line %d, in handle\n    run()\nValueError: bad request %d\n", i, i+1, i)
			for range 10 {
				log.WriteString("INFO:     127.0.0.1:5000 - \"GET /health HTTP/1.1\" 200 OK\n")
			}
		}
		// Both launches are 1,100 lines, so their lines lie alike in
		// blocks (of 512 seqs) and rows: a read of lines in a block takes
		// a statement more for their texts, whatever the alarms.
		for range 1100 - 1 - 15*alarms {
			log.WriteString("INFO:     127.0.0.1:5000 - \"GET /metrics HTTP/1.1\" 200 OK\n")
		}
		b.postText("/api/v1/launches/"+key+"/lines?server=vllm", log.String())
		l, err := srv.Store.LaunchByKey(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		if l.Alarms != alarms {
			t.Fatalf("%s has %d alarms, want %d", key, l.Alarms, alarms)
		}
		count.id.Store(l.ID)
		count.key.Store(key)
		b.page("/launches/"+key, 200) // the gap cache filled
		count.n.Store(0)
		b.page("/launches/"+key, 200)
		statements[alarms] = count.n.Load()
	}
	if statements[1] == 0 || statements[20] != statements[1] {
		t.Errorf("the launch page took %d statements with 1 alarm, %d with 20; want as many, and some", statements[1], statements[20])
	}
}
