package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"launchwatch/internal/store/storetest"
)

// lagDB is the database a web process serves, which a test replaces with
// an older copy of itself behind the server's back, as a restore from a
// backup or the promotion of a standby that lagged would: the server
// then no longer holds lines it acknowledged.
type lagDB struct {
	t     *testing.T
	admin string // the "postgres" database of the test server
	name  string
	url   string
}

func newLagDB(t *testing.T) *lagDB {
	t.Helper()
	pool, dbURL := storetest.NewDB(t)
	name := pool.Config().ConnConfig.Database
	pool.Close() // only the web process connects: a copy needs none open
	return &lagDB{t: t, admin: storetest.ServerURL(t, "postgres"), name: name, url: dbURL}
}

// exec runs a statement on the test server. A statement that needs a
// database nobody is connected to is tried again while the sessions of a
// web process just stopped are still ending (object_in_use).
func (d *lagDB) exec(sql string) {
	d.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, d.admin)
	if err != nil {
		d.t.Fatal(err)
	}
	defer conn.Close(ctx)
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := conn.Exec(ctx, sql)
		var pe *pgconn.PgError
		if err == nil {
			return
		}
		if !errors.As(err, &pe) || pe.Code != "55006" || time.Now().After(deadline) {
			d.t.Fatalf("%s: %v", sql, err)
		}
		time.Sleep(20 * time.Millisecond) // polling for the sessions to end
	}
}

// copy takes a copy of the database as it is now (no web process may be
// connected): the state the server will be rolled back to.
func (d *lagDB) copy() string {
	d.t.Helper()
	old := d.name + "_older"
	d.exec(`CREATE DATABASE ` + pgx.Identifier{old}.Sanitize() + ` TEMPLATE ` + pgx.Identifier{d.name}.Sanitize())
	d.t.Cleanup(func() { d.exec(`DROP DATABASE IF EXISTS ` + pgx.Identifier{old}.Sanitize() + ` WITH (FORCE)`) })
	return old
}

// rollBack puts the copy in the database's place, under its name (no web
// process may be connected): the server's URL is unchanged, its lines are
// those of the copy.
func (d *lagDB) rollBack(copy string) {
	d.t.Helper()
	lost := d.name + "_lost"
	d.exec(`ALTER DATABASE ` + pgx.Identifier{d.name}.Sanitize() + ` RENAME TO ` + pgx.Identifier{lost}.Sanitize())
	d.t.Cleanup(func() { d.exec(`DROP DATABASE IF EXISTS ` + pgx.Identifier{lost}.Sanitize() + ` WITH (FORCE)`) })
	d.exec(`ALTER DATABASE ` + pgx.Identifier{copy}.Sanitize() + ` RENAME TO ` + pgx.Identifier{d.name}.Sanitize())
}

// gateProxy forwards a shipper's requests to a server and stops them
// itself, deterministically: once the server has acknowledged a batch
// through seq at, requests wait at the gate until it is opened again.
// The server can then be stopped, copied or rolled back with the shipper
// in the middle of its file, whatever its speed.
type gateProxy struct {
	mu     sync.Mutex
	at     int64         // close after an acknowledgement through this seq; 0: never
	open   chan struct{} // closed while requests pass
	closed chan struct{} // closed when the gate closed
}

func (g *gateProxy) start(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	g.open, g.closed = make(chan struct{}), make(chan struct{})
	close(g.open)
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) }}
	rp.ModifyResponse = func(r *http.Response) error {
		if r.Request.Method != http.MethodPost || !strings.HasSuffix(r.Request.URL.Path, "/lines") || r.StatusCode != http.StatusOK {
			return nil
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var ack struct {
			LastSeq int64 `json:"last_seq"`
		}
		json.Unmarshal(body, &ack) //nolint:errcheck // not an ack: nothing to look at
		g.mu.Lock()
		if g.at > 0 && ack.LastSeq >= g.at {
			g.at = 0
			g.open = make(chan struct{})
			close(g.closed)
		}
		g.mu.Unlock()
		return nil
	}
	return newProxyServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		open := g.open
		g.mu.Unlock()
		<-open
		rp.ServeHTTP(w, r)
	}))
}

// closeAt closes the gate after the server acknowledged seq; the channel
// is closed when it did.
func (g *gateProxy) closeAt(seq int64) <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.at, g.closed = seq, make(chan struct{})
	return g.closed
}

func (g *gateProxy) reopen() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

func waitClosed(t *testing.T, closed <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-closed:
	case <-time.After(60 * time.Second):
		t.Fatalf("the shipper did not get %s acknowledged", what)
	}
}

// The server's database loses lines it acknowledged, behind its back:
// with `ship --once` in the middle of a 60,000-line file, the web process
// is stopped and its database copied (the backup, or the standby that
// lags); the shipper goes on; then the process is killed and started again
// on the copy under the database's name, which lacks the 20,000 lines
// acknowledged since. The shipper goes on with the rest of the file, so
// the loss is a hole, not a shorter launch. It notices (the answers name
// another database history, and before it reports success it checks what
// the server holds), sends the lost lines again from the file and exits 0
// only then: every line stored, once, in order.
func TestShipOnceResendsWhatARolledBackDatabaseLost(t *testing.T) {
	t.Parallel()
	db := newLagDB(t)
	addr := freeAddr(t)
	srvURL := "http://" + addr
	w := startWebProcess(t, addr, db.url)
	var gate gateProxy
	proxy := gate.start(t, srvURL)
	dir := t.TempDir()
	log := filepath.Join(dir, "server.log")
	const n = 60000
	want := writeLines(t, log, 1, n, false)

	first := gate.closeAt(10000)
	ship, out := startCLI(t, spoolEnv(filepath.Join(dir, "spool")), nil, "ship", log, "--launch", "rolled-back", "--once", "--url", proxy,
		"--state-file", filepath.Join(dir, "state"), "--retry-for", "2m")
	waitClosed(t, first, "line 10000")
	w.stop(t)
	older := db.copy()
	copied, _ := lastSeqOf(t, db, older)
	w = startWebProcess(t, addr, db.url)
	second := gate.closeAt(copied + 20000)
	gate.reopen()
	waitClosed(t, second, fmt.Sprintf("line %d", copied+20000))
	acked, _ := getLaunch(t, srvURL, "rolled-back")
	w.cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // the primary dies
	w.cmd.Wait()                          //nolint:errcheck
	db.rollBack(older)
	w = startWebProcess(t, addr, db.url)
	defer w.stop(t)
	if l, _ := getLaunch(t, srvURL, "rolled-back"); l.LastSeq != copied || acked.LastSeq < copied+20000 || acked.LastSeq >= n {
		t.Fatalf("the rolled-back server holds through %d, acknowledged %d before (copy: %d): not a loss in the middle", l.LastSeq, acked.LastSeq, copied)
	}
	gate.reopen()

	if code := waitExit(t, ship, out, 2*time.Minute); code != 0 {
		t.Fatalf("ship --once: exit %d\n%s", code, out)
	}
	if s := out.String(); !strings.Contains(s, "sent again that the server had lost") || !strings.Contains(s, "the server holds every line of the file") {
		t.Errorf("ship --once does not say it sent lost lines again:\n%s", s)
	}
	equalLines(t, storedTexts(t, srvURL, "rolled-back"), want) // seqs 1..n: 0 lost, none doubled
	t.Logf("the server lost seqs %d-%d after acknowledging them; ship sent them again:\n%s", copied+1, acked.LastSeq, out)
}

// lastSeqOf is the launch's last seq in database name of the test server.
func lastSeqOf(t *testing.T, d *lagDB, name string) (int64, bool) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, storetest.WithDatabase(d.admin, name))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var last int64
	err = conn.QueryRow(ctx, `SELECT last_seq FROM launches WHERE key = 'rolled-back'`).Scan(&last)
	if err != nil {
		t.Fatal(err)
	}
	return last, last > 0
}

// `run` keeps the newest lines it shipped: its child's output is nowhere
// else. The server's database is copied after the first 2,000 lines, the
// child prints 2,000 more, and the server is killed and started again on
// the copy; the child prints its last 1,000 and exits 3. run sends the
// 2,000 lines the server lost again from what it kept, and exits with its
// child's code: every line stored, once, in order, and the exit.
func TestRunResendsWhatARolledBackDatabaseLost(t *testing.T) {
	t.Parallel()
	db := newLagDB(t)
	addr := freeAddr(t)
	srvURL := "http://" + addr
	w := startWebProcess(t, addr, db.url)
	dir := t.TempDir()
	stdin, feed := io.Pipe()
	print := func(from, to int) string {
		return fmt.Sprintf(`i=%d; while [ $i -le %d ]; do echo "run line $i"; i=$((i+1)); done`, from, to)
	}
	run, out := startCLI(t, spoolEnv(dir), stdin, "run", "--launch", "run-rolled-back", "--url", srvURL, "--", "sh", "-c",
		print(1, 2000)+"; read x; "+print(2001, 4000)+"; read x; "+print(4001, 5000)+"; exit 3")
	at := func(seq int64) func() bool {
		return func() bool {
			l, _ := getLaunch(t, srvURL, "run-rolled-back")
			return l.LastSeq == seq
		}
	}
	eventually(t, "the first 2000 lines", at(2000))
	w.stop(t)
	older := db.copy()
	w = startWebProcess(t, addr, db.url)
	fmt.Fprintln(feed)
	eventually(t, "4000 lines", at(4000))
	w.cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // the primary dies
	w.cmd.Wait()                          //nolint:errcheck
	db.rollBack(older)
	w = startWebProcess(t, addr, db.url)
	defer w.stop(t)
	if l, _ := getLaunch(t, srvURL, "run-rolled-back"); l.LastSeq != 2000 {
		t.Fatalf("the rolled-back server holds through %d, want 2000", l.LastSeq)
	}
	fmt.Fprintln(feed)
	feed.Close()
	if code := waitExit(t, run, out, 60*time.Second); code != 3 {
		t.Fatalf("run exit %d, want the child's 3\n%s", code, out)
	}
	want := make([]string, 5000)
	for i := range want {
		want[i] = fmt.Sprintf("run line %d", i+1)
	}
	equalLines(t, storedTexts(t, srvURL, "run-rolled-back"), want)
	if l, _ := getLaunch(t, srvURL, "run-rolled-back"); l.ExitCode == nil || *l.ExitCode != 3 {
		t.Errorf("launch %+v, want the exit code 3", l)
	}
	if s := out.String(); !strings.Contains(s, "sending them again") {
		t.Errorf("run does not say it sent lost lines again:\n%s", s)
	}
}

// Following a file (no --once), ship has no end to check at: it checks
// what the server holds when a request failed or the server's database
// history changed. The database is copied, more lines are acknowledged,
// the server is killed and started on the copy, and the file grows: the
// lost lines arrive again with the new ones, each once, in order.
func TestShipFollowingResendsWhatARolledBackDatabaseLost(t *testing.T) {
	t.Parallel()
	db := newLagDB(t)
	addr := freeAddr(t)
	srvURL := "http://" + addr
	w := startWebProcess(t, addr, db.url)
	dir := t.TempDir()
	log := filepath.Join(dir, "server.log")
	want := writeLines(t, log, 1, 3000, false)
	ship, out := startCLI(t, spoolEnv(filepath.Join(dir, "spool")), nil, "ship", log, "--launch", "follow-rolled-back", "--url", srvURL,
		"--state-file", filepath.Join(dir, "state"))
	at := func(seq int64) func() bool {
		return func() bool {
			l, _ := getLaunch(t, srvURL, "follow-rolled-back")
			return l.LastSeq == seq
		}
	}
	eventually(t, "the first 3000 lines", at(3000))
	w.stop(t)
	older := db.copy()
	w = startWebProcess(t, addr, db.url)
	want = append(want, writeLines(t, log, 3001, 6000, true)...)
	eventually(t, "6000 lines", at(6000))
	w.cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // the primary dies
	w.cmd.Wait()                          //nolint:errcheck
	db.rollBack(older)
	w = startWebProcess(t, addr, db.url)
	defer w.stop(t)
	want = append(want, writeLines(t, log, 6001, 7000, true)...)
	eventually(t, "every line, the lost ones too", func() bool { return heldRuns(t, srvURL, "follow-rolled-back") == "[[1,7000]]" })
	equalLines(t, storedTexts(t, srvURL, "follow-rolled-back"), want)
	ship.Process.Signal(syscall.SIGINT) //nolint:errcheck
	if code := waitExit(t, ship, out, 30*time.Second); code != 130 {
		t.Errorf("ship after SIGINT: exit %d, want 130\n%s", code, out)
	}
}

// heldRuns is the runs of seqs the server holds for a launch, as JSON.
func heldRuns(t *testing.T, srvURL, key string) string {
	t.Helper()
	res, err := http.Get(srvURL + "/api/v1/launches/" + key + "/seqs")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var page struct {
		Runs json.RawMessage `json:"runs"`
	}
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	return string(page.Runs)
}
