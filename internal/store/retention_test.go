package store_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/pipeline"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// retentionBundle is a database with launches of a few lines each.
type retentionBundle struct {
	t    *testing.T
	pool *pgxpool.Pool
	st   *store.Store
	pipe *pipeline.Pipeline
}

func newRetentionBundle(t *testing.T) *retentionBundle {
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	return &retentionBundle{t: t, pool: pool, st: st, pipe: pipeline.New(st, slog.New(slog.DiscardHandler))}
}

// launch stores a launch of lines lines and returns its id.
func (b *retentionBundle) launch(key string, lines int) int64 {
	b.t.Helper()
	var batch []decode.Line
	for i := range lines {
		batch = append(batch, decode.Line{Seq: int64(i + 1), Text: fmt.Sprintf("INFO step %d of the made-up warmup", i)})
	}
	if _, err := b.pipe.Ingest(context.Background(), key, launchid.Attrs{Server: "vllm"}, batch); err != nil {
		b.t.Fatal(err)
	}
	l, err := b.st.LaunchByKey(context.Background(), key)
	if err != nil {
		b.t.Fatal(err)
	}
	return l.ID
}

// age moves every time of the launch back by d, as if it were that old.
func (b *retentionBundle) age(key string, d time.Duration) {
	b.t.Helper()
	_, err := b.pool.Exec(context.Background(), `UPDATE launches SET created_at = created_at - $2::interval,
		updated_at = updated_at - $2::interval, last_line_at = last_line_at - $2::interval WHERE key = $1`, key, d.String())
	if err != nil {
		b.t.Fatal(err)
	}
}

// skipToBlock makes the next launch id the first of block n, as if the
// launches between had been made (and deleted).
func (b *retentionBundle) skipToBlock(n int64) {
	b.t.Helper()
	_, err := b.pool.Exec(context.Background(), `SELECT setval(pg_get_serial_sequence('launches', 'id'), $1)`, n*store.LaunchesPerPartition)
	if err != nil {
		b.t.Fatal(err)
	}
}

func (b *retentionBundle) count(sql string, args ...any) int {
	b.t.Helper()
	var n int
	if err := b.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		b.t.Fatal(err)
	}
	return n
}

func (b *retentionBundle) exists(key string) bool {
	return b.count(`SELECT count(*) FROM launches WHERE key = $1`, key) == 1
}

func (b *retentionBundle) partition(name string) bool {
	return b.count(`SELECT count(*) FROM pg_class WHERE relname = $1`, name) == 1
}

func TestRetention(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("DropsWholePartitions", func(t *testing.T) {
		t.Parallel()
		b := newRetentionBundle(t)
		old1, old2 := b.launch("old-1", 5), b.launch("old-2", 3)
		b.skipToBlock(1)
		b.launch("new-1", 2)
		b.age("old-1", 48*time.Hour)
		b.age("old-2", 30*time.Hour)

		res, err := b.st.ApplyRetention(ctx, time.Now().Add(-24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if res.Launches != 2 || res.Lines != 8 || !slices.Equal(res.Partitions, []string{"lines_p000000"}) {
			t.Fatalf("retention %+v, want 2 launches, 8 lines, lines_p000000 dropped", res)
		}
		if b.partition("lines_p000000") || b.partition("line_keys_p000000") {
			t.Error("the expired block's partitions are still there")
		}
		if b.exists("old-1") || b.exists("old-2") || !b.exists("new-1") {
			t.Error("wrong launches kept")
		}
		if n := b.count(`SELECT count(*) FROM lines WHERE launch_id = ANY($1)`, []int64{old1, old2}); n != 0 {
			t.Errorf("%d lines of expired launches left", n)
		}
		if n := b.count(`SELECT count(*) FROM audit_events WHERE action = 'launch.expire' AND actor = 'retention'`); n != 2 {
			t.Errorf("%d launch.expire audit events, want 2", n)
		}
		// A second pass finds nothing, and the live block is never dropped.
		res, err = b.st.ApplyRetention(ctx, time.Now().Add(-24*time.Hour))
		if err != nil || res.Launches != 0 || len(res.Partitions) != 0 || !b.partition("lines_p000001") {
			t.Fatalf("second pass %+v %v", res, err)
		}
	})

	t.Run("KeepsPinnedAndOpenIncidents", func(t *testing.T) {
		t.Parallel()
		b := newRetentionBundle(t)
		for _, k := range []string{"plain", "pinned", "in-open", "in-resolved", "recent"} {
			b.launch(k, 4)
		}
		b.skipToBlock(1)
		b.launch("live-block", 1)
		for _, k := range []string{"plain", "pinned", "in-open", "in-resolved"} {
			b.age(k, 90*24*time.Hour)
		}
		if _, err := b.st.SetLaunchPin(ctx, "pinned", true, "ada"); err != nil {
			t.Fatal(err)
		}
		_, err := b.pool.Exec(ctx, `
			WITH o AS (INSERT INTO incidents (title, status) VALUES ('made-up outage', 'investigating') RETURNING id),
			     r AS (INSERT INTO incidents (title, status) VALUES ('made-up old outage', 'resolved') RETURNING id)
			INSERT INTO incident_launches (incident_id, launch_id)
			SELECT o.id, (SELECT id FROM launches WHERE key = 'in-open') FROM o
			UNION ALL SELECT r.id, (SELECT id FROM launches WHERE key = 'in-resolved') FROM r`)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.st.ApplyRetention(ctx, time.Now().Add(-30*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if res.Launches != 2 || len(res.Partitions) != 0 {
			t.Fatalf("retention %+v, want plain and in-resolved deleted row by row, no partition dropped", res)
		}
		for k, want := range map[string]bool{"plain": false, "in-resolved": false, "pinned": true, "in-open": true, "recent": true} {
			if b.exists(k) != want {
				t.Errorf("launch %s kept = %v, want %v", k, !want, want)
			}
		}
		if n := b.count(`SELECT count(*) FROM lines l JOIN launches x ON x.id = l.launch_id WHERE x.key IN ('pinned', 'in-open', 'recent')`); n != 12 {
			t.Errorf("kept launches hold %d lines, want 12", n)
		}
		if n := b.count(`SELECT count(*) FROM lines`); n != 13 {
			t.Errorf("%d lines left, want 13 (the deleted launches' lines went with them)", n)
		}
	})
}

// TestEveryLaunchReferenceCascades lists every foreign key to launches
// and checks it deletes with its launch: a table added later that forgot
// ON DELETE CASCADE would make deleting a launch fail (or leave its rows).
// Then it deletes a launch with rows in each and checks none is left.
func TestEveryLaunchReferenceCascades(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newRetentionBundle(t)
	rows, err := b.pool.Query(ctx, `SELECT conrelid::regclass::text, confdeltype::text FROM pg_constraint
		WHERE contype = 'f' AND confrelid = 'launches'::regclass AND conparentid = 0`)
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]string{}
	for rows.Next() {
		var table, del string
		if err := rows.Scan(&table, &del); err != nil {
			t.Fatal(err)
		}
		refs[table] = del
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	for table, del := range refs {
		if del != "c" {
			t.Errorf("%s refers to launches without ON DELETE CASCADE (%s): deleting a launch would fail", table, del)
		}
	}
	if len(refs) < 9 {
		t.Errorf("only %d tables refer to launches: %v", len(refs), refs)
	}

	id := b.launch("doomed", 3)
	b.launch("bystander", 3)
	crash := []decode.Line{{Seq: 4, Text: "Traceback (most recent call last):"}, {Seq: 5, Text: `  File "made_up.py", line 3, in <module>`},
		{Seq: 6, Text: "RuntimeError: CUDA error: an illegal memory access was encountered"}}
	if _, err := b.pipe.Ingest(ctx, "doomed", launchid.Attrs{}, crash); err != nil {
		t.Fatal(err)
	}
	if _, err := b.pipe.Exit(ctx, "doomed", nil, "SIGKILL", false); err != nil {
		t.Fatal(err)
	}
	if _, err := b.pool.Exec(ctx, `INSERT INTO annotations (launch_id, author, body) VALUES ($1, 'ada', 'made-up note')`, id); err != nil {
		t.Fatal(err)
	}
	d, err := b.st.DeleteLaunch(ctx, "doomed", "ada")
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != id || d.Lines != 6 || d.Server != "vllm" {
		t.Errorf("deleted %+v, want id %d, 6 lines, vllm", d, id)
	}
	for table := range refs {
		if n := b.count(`SELECT count(*) FROM `+table+` WHERE launch_id = $1`, id); n != 0 {
			t.Errorf("%d rows of the deleted launch left in %s", n, table)
		}
	}
	if n := b.count(`SELECT count(*) FROM lines`); n != 3 {
		t.Errorf("%d lines left, want the bystander's 3", n)
	}
	if _, err := b.st.DeleteLaunch(ctx, "doomed", "ada"); err != store.ErrNotFound {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}
}
