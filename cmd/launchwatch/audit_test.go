package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	osexec "os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"launchwatch/internal/store/storetest"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// auditedServer is a test server whose audit log holds a few rows made
// through the API: tokens created and revoked, a webhook, a decision-free
// launch's deletion.
func auditedServer(t *testing.T) *webtest.Server {
	t.Helper()
	srv := webtest.Start(t, web.Config{})
	post := func(method, path, body string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+srv.Token)
		if strings.HasPrefix(body, "{") {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode/100 != 2 {
			t.Fatalf("%s %s: %d", method, path, res.StatusCode)
		}
	}
	for i := range 4 {
		post("POST", "/api/v1/tokens", fmt.Sprintf(`{"name": "shipper %d \u00e9 \"quoted\"", "scope": "ingest"}`, i))
	}
	post("DELETE", "/api/v1/tokens/2", "")
	post("POST", "/api/v1/launches/gone/lines", "one line\n")
	post("DELETE", "/api/v1/launches/gone", "")
	return srv
}

// asOwner runs statements on the server's database as the role that owns
// its tables, as someone with that role's password could behind the
// server's back.
func asOwner(t *testing.T, srv *webtest.Server, sqls ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sql := range sqls {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

func verify(t *testing.T, srv *webtest.Server, extra ...string) (int, string) {
	t.Helper()
	code, out, errOut := runCmd(append([]string{"audit", "verify", "--url", srv.URL, "--token", srv.Token}, extra...)...)
	return code, out + errOut
}

var soundPattern = regexp.MustCompile(`the audit log is sound: (\d+) rows, head (\d+:[0-9a-f]{64})`)

// TestAuditVerifyFindsARowChangedBehindTheServersBack: the audit log's
// owner gets round its append-only trigger (ALTER TABLE ... DISABLE
// TRIGGER) and changes who did something; `launchwatch audit verify`, sound
// before, names that row and exits 1.
func TestAuditVerifyFindsARowChangedBehindTheServersBack(t *testing.T) {
	t.Parallel()
	srv := auditedServer(t)
	code, out := verify(t, srv)
	m := soundPattern.FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] == "0" {
		t.Fatalf("a log nobody changed: exit %d\n%s", code, out)
	}

	asOwner(t, srv,
		`ALTER TABLE audit_events DISABLE TRIGGER USER`,
		`UPDATE audit_events SET actor = 'someone else' WHERE chain_seq = 3`,
		`ALTER TABLE audit_events ENABLE TRIGGER USER`)
	code, out = verify(t, srv)
	if code != 1 || !strings.Contains(out, "broken at row 3 (") || !strings.Contains(out, "by someone else") ||
		!strings.Contains(out, "changed after it was written") || !strings.Contains(out, "rows 1 to 2 are sound") {
		t.Errorf("after an edit of row 3: exit %d\n%s", code, out)
	}
}

// TestAuditVerifyFindsDeletedRows: a row deleted in the middle leaves a
// hole, rows deleted at the end leave the head past the last row.
func TestAuditVerifyFindsDeletedRows(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, where, want string }{
		{"InTheMiddle", `chain_seq = 2`, "broken at row 2: it is missing: the next row is 3"},
		{"AtTheEnd", `chain_seq >= 5`, "the log ends at row 4 but its head says"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := auditedServer(t)
			asOwner(t, srv, `ALTER TABLE audit_events DISABLE TRIGGER USER`,
				`DELETE FROM audit_events WHERE `+tt.where, `ALTER TABLE audit_events ENABLE TRIGGER USER`)
			if code, out := verify(t, srv); code != 1 || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d, want 1 saying %q:\n%s", code, tt.want, out)
			}
		})
	}
}

// TestAuditVerifyAnchorCatchesARehashedLog: an owner who changes a row and
// computes every later hash and the head again (the function the trigger
// uses is there) makes a log that is sound by itself; the head an earlier
// verify printed, given as --anchor, still catches it.
func TestAuditVerifyAnchorCatchesARehashedLog(t *testing.T) {
	t.Parallel()
	srv := auditedServer(t)
	code, out := verify(t, srv)
	m := soundPattern.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("exit %d\n%s", code, out)
	}
	anchor := m[2]
	asOwner(t, srv,
		`ALTER TABLE audit_events DISABLE TRIGGER USER`,
		`UPDATE audit_events SET actor = 'someone else' WHERE chain_seq = 2`,
		`DO $$
		DECLARE r record; h bytea := decode(repeat('00', 32), 'hex');
		BEGIN
			FOR r IN SELECT * FROM audit_events ORDER BY chain_seq LOOP
				h := sha256(h || audit_row_content(r.chain_seq, r.id, r.at, r.actor, r.action, r.subject, r.detail));
				UPDATE audit_events SET hash = h WHERE id = r.id;
			END LOOP;
			UPDATE audit_chain SET hash = h;
		END $$`,
		`ALTER TABLE audit_events ENABLE TRIGGER USER`)
	if code, out := verify(t, srv); code != 0 {
		t.Fatalf("a log hashed again throughout is sound by itself (the limit README states): exit %d\n%s", code, out)
	}
	code, out = verify(t, srv, "--anchor", anchor)
	if code != 1 || !strings.Contains(out, "not the") || !strings.Contains(out, "noted for it") {
		t.Errorf("--anchor %s: exit %d, want 1\n%s", anchor, code, out)
	}
}

func TestAuditVerifyUsage(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"audit"}, 2, "Usage: launchwatch audit verify"},
		{[]string{"audit", "verify", "--anchor", "x"}, 2, "want SEQ:HASH"},
		{[]string{"audit", "verify", "--url", srv.URL, "--token", srv.NewToken(t, "read")}, 4, "403"},
	} {
		if code, out, errOut := runCmd(tt.args...); code != tt.code || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("%q: exit %d, want %d saying %q\n%s%s", tt.args, code, tt.code, tt.want, out, errOut)
		}
	}
}

// cmd/web on a PostgreSQL of one's own with two roles (--database-url the
// app role, --database-owner-url the owner): it migrates and grants as the
// owner, then serves as the app role, which cannot change the audit log,
// and the log verifies. Both URLs naming one role is refused.
func TestWebServesWithAnOwnerRole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := storetest.ServerURL(t, "postgres")
	role, password := fmt.Sprintf("lw_app_%d", time.Now().UnixNano()), "app-role-password"
	exec := func(sql string) error {
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := exec(`CREATE ROLE ` + role + ` LOGIN PASSWORD '` + password + `'`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // after the database is dropped
		if err := exec(`DROP ROLE IF EXISTS ` + role); err != nil {
			t.Logf("drop role: %v", err)
		}
	})
	_, ownerURL := storetest.NewDB(t)
	appURL := storetest.WithUser(ownerURL, role, password)
	addr := freeAddr(t)
	web := startWebProcess(t, addr, appURL, "--database-owner-url", ownerURL)
	defer web.stop(t)
	res, err := http.Post("http://"+addr+"/api/v1/launches/two-roles/lines", "text/plain", strings.NewReader("one\ntwo\n"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("ingest as the app role: %d", res.StatusCode)
	}
	if code, out, errOut := runCmd("audit", "verify", "--url", "http://"+addr, "--token", webtest.AdminToken); code != 0 || !soundPattern.MatchString(out) {
		t.Errorf("verify: exit %d\n%s%s", code, out, errOut)
	}
	conn, err := pgx.Connect(ctx, appURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var pgErr *pgconn.PgError
	if _, err := conn.Exec(ctx, `ALTER TABLE audit_events DISABLE TRIGGER USER`); !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Errorf("the app role alters the audit log: %v, want permission denied", err)
	}

	same := startFailingWeb(t, "--addr", freeAddr(t), "--database-url", ownerURL, "--database-owner-url", ownerURL)
	if !strings.Contains(same, "both role") {
		t.Errorf("one role for both URLs: %s", same)
	}
}

// startFailingWeb runs cmd/web, which must exit with an error, and returns
// what it said.
func startFailingWeb(t *testing.T, args ...string) string {
	t.Helper()
	cmd := osexec.Command(webBin, args...)
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("cmd/web %q started", args)
	}
	return string(out)
}
