package store_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// commitMessage is the simple-protocol Query message pgx sends to commit.
var commitMessage = append([]byte{'Q', 0, 0, 0, 11}, "commit\x00"...)

// Modes of a commitCutter.
const (
	passCommits     = iota
	cutBeforeCommit // the commit never reaches the server
	cutAfterCommit  // the server commits; its answer never reaches the client
)

// commitCutter is a proxy in front of PostgreSQL that, when armed, breaks
// the connection that sends the next commit: before the server sees it, or
// after the server committed but before its answer comes back.
type commitCutter struct {
	mode atomic.Int32
	wg   sync.WaitGroup
}

// startCommitCutter listens on a unix socket in a directory of its own and
// forwards to the server of cfg; it returns the config to reach it.
func startCommitCutter(t *testing.T, cfg *pgx.ConnConfig) (*commitCutter, *pgx.ConnConfig) {
	t.Helper()
	upstream := fmt.Sprintf("%s/.s.PGSQL.%d", cfg.Host, cfg.Port)
	network := "unix"
	if !filepath.IsAbs(cfg.Host) {
		network, upstream = "tcp", net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port))
	}
	dir, err := os.MkdirTemp("", "lwcut")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ln, err := net.Listen("unix", filepath.Join(dir, ".s.PGSQL.5432"))
	if err != nil {
		t.Fatal(err)
	}
	c := &commitCutter{}
	c.wg.Go(func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial(network, upstream)
			if err != nil {
				client.Close()
				continue
			}
			c.wg.Go(func() { c.pipe(client, server) })
		}
	})
	t.Cleanup(func() { ln.Close(); c.wg.Wait() })
	proxied := cfg.Copy()
	proxied.Host, proxied.Port = dir, 5432
	proxied.Fallbacks = nil
	return c, proxied
}

func (c *commitCutter) pipe(client, server net.Conn) {
	defer client.Close()
	defer server.Close()
	cut := make(chan struct{})
	var once sync.Once
	done := func() { once.Do(func() { close(cut) }) }
	var answerCut atomic.Bool
	answered := make(chan struct{})
	go func() { // server → client
		defer close(answered)
		defer done()
		buf := make([]byte, 64<<10)
		for {
			n, err := server.Read(buf)
			if answerCut.Load() {
				return // the commit's answer: dropped
			}
			if n > 0 {
				if _, werr := client.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() { // client → server
		defer done()
		buf := make([]byte, 64<<10)
		for {
			n, err := client.Read(buf)
			chunk := buf[:n]
			if bytes.Contains(chunk, commitMessage) {
				switch c.mode.Swap(passCommits) {
				case cutBeforeCommit:
					return
				case cutAfterCommit:
					answerCut.Store(true)
					server.Write(chunk) //nolint:errcheck // the server's answer tells
					return
				}
			}
			if n > 0 {
				if _, werr := server.Write(chunk); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	<-cut
	if answerCut.Load() {
		// Let the server commit before the socket closes: wait until its
		// answer came (and was dropped), at most a while.
		select {
		case <-answered:
		case <-time.After(5 * time.Second):
		}
	}
}

// TestWithTxLostCommitAnswer: a connection that breaks at the commit is no
// failure when the transaction committed (its answer was lost: WithTx asks
// the server, and returns nil), and a retryable one when it did not (the
// commit never arrived: ErrUnavailable).
func TestWithTxLostCommitAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	direct, connString := storetest.NewDB(t)
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		t.Fatal(err)
	}
	cutter, proxied := startCommitCutter(t, cfg.ConnConfig)
	cfg.ConnConfig = proxied
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st := store.New(pool)
	id, err := st.EnsureLaunch(ctx, "cut", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	write := func(seq int64) error {
		return st.WithTx(ctx, func(tx *store.Tx) error {
			return tx.CopyLines(ctx, id, []store.Line{{Seq: seq, TS: time.Now(), ReceivedAt: time.Now(), Kind: "plain",
				Text: fmt.Sprintf("line %d", seq)}})
		})
	}
	stored := func(seq int64) bool {
		var n int
		if err := direct.QueryRow(ctx, `SELECT count(*) FROM lines WHERE launch_id = $1 AND seq = $2`, id, seq).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}

	cutter.mode.Store(cutAfterCommit)
	if err := write(1); err != nil {
		t.Errorf("commit whose answer was lost: %v, want nil (it committed)", err)
	}
	if !stored(1) {
		t.Errorf("the line of the committed transaction is not stored")
	}

	cutter.mode.Store(cutBeforeCommit)
	if err := write(2); !store.IsUnavailable(err) {
		t.Errorf("commit that never arrived: %v, want an ErrUnavailable error", err)
	}
	if stored(2) {
		t.Errorf("the line of the transaction that did not commit is stored")
	}
	if err := write(2); err != nil || !stored(2) {
		t.Errorf("the retry: %v, stored %v", err, stored(2))
	}
}
