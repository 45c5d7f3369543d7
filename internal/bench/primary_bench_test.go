package bench_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"launchwatch/internal/store"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// BenchmarkOnePrimary measures how far one PostgreSQL primary goes on this
// design: LWBENCH_PRIMARY_LAUNCHES (default 16) launches ship the shared
// corpus's mix at once, each one 1,000-line batch at a time as fast as the
// node answers, for LWBENCH_PRIMARY_SECONDS (default 20) seconds, into one
// web node. It prints the lines a second the pair sustained, the CPU the
// database's processes and the web process spent per million lines (so
// what one core of each buys), the WAL written per line (what a standby
// must receive and replay, and what a failover can lose per second of
// lag) and the bytes the lines take as rows. docs/scale.md turns these
// into how far one primary goes.
//
//	go test -run '^$' -bench BenchmarkOnePrimary -benchtime 1x ./internal/bench/
func BenchmarkOnePrimary(b *testing.B) {
	launches := envInt("LWBENCH_PRIMARY_LAUNCHES", 16)
	seconds := envInt("LWBENCH_PRIMARY_SECONDS", 20)
	mix := corpusMix(b)
	srv := webtest.Start(b, web.Config{MaxNewLaunchesPerMinute: -1})
	pool := srv.Store.Pool()
	ctx := context.Background()
	for b.Loop() {
		const batch = 1000
		var bodies []string
		for i := 0; i+batch <= len(mix); i += batch {
			bodies = append(bodies, strings.Join(mix[i:i+batch], "\n")+"\n")
		}
		quiesce(b, pool)
		wal0 := walLSN(b, srv)
		db0, go0 := databaseCPU(ctx, pool), cpuTime()
		var lines, batches atomic.Int64
		var latMu sync.Mutex
		var latencies []time.Duration
		start := time.Now()
		stop := start.Add(time.Duration(seconds) * time.Second)
		var wg sync.WaitGroup
		for l := range launches {
			wg.Add(1)
			go func() {
				defer wg.Done()
				key := fmt.Sprintf("primary-%d", l)
				seq := 1
				for k := l; time.Now().Before(stop); k++ {
					at := time.Now()
					post(b, srv.URL+"/api/v1/launches/"+key+"/lines?server=sglang&seq="+strconv.Itoa(seq), "text/plain", bodies[k%len(bodies)])
					d := time.Since(at)
					latMu.Lock()
					latencies = append(latencies, d)
					latMu.Unlock()
					seq += batch
					lines.Add(batch)
					batches.Add(1)
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		dbCPU, goCPU := cpuSince(ctx, pool, db0), cpuTime()-go0
		wal := walLSN(b, srv) - wal0
		n := lines.Load()
		var rowBytes int64
		if err := pool.QueryRow(ctx, `SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
			WHERE c.relkind = 'r' AND (c.relname ~ '^(lines|line_keys|line_blocks|line_chunks|line_templates)_p' OR c.relname IN ('line_chunks', 'line_templates', 'classifier_checkpoints'))`).Scan(&rowBytes); err != nil {
			b.Fatal(err)
		}
		perM := func(d time.Duration) float64 { return d.Seconds() / (float64(n) / 1e6) }
		fmt.Printf("primary: %d launches at once, 1,000-line batches of the corpus mix: %.0f lines/s for %.0f s (%d lines, %d batches; batch p50 %.0f ms, p99 %.0f ms)\n",
			launches, float64(n)/elapsed.Seconds(), elapsed.Seconds(), n, batches.Load(),
			ms(percentile(latencies, 50)), ms(percentile(latencies, 99)))
		fmt.Printf("primary: CPU per million lines: database %.1f s, web process %.1f s (one core of each: %.0f and %.0f lines/s)\n",
			perM(dbCPU), perM(goCPU), 1e6/perM(dbCPU), 1e6/perM(goCPU))
		fmt.Printf("primary: WAL %.0f bytes a line (%.1f MB/s at this rate: what a standby receives, and what a second of its lag can lose); rows and their indexes %.0f bytes a line before compaction\n",
			float64(wal)/float64(n), float64(wal)/elapsed.Seconds()/1e6, float64(rowBytes)/float64(n))
	}
}

// walLSN is where the server's WAL ends now.
func walLSN(b *testing.B, srv *webtest.Server) store.LSN {
	l, err := srv.Store.WrittenLSN(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return l
}
