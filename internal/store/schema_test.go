package store_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// Beyond one PostgreSQL (docs/scale.md): Citus would distribute every
// line-level table by launch_id, co-located with launches (distributed by
// id), and keep the small tables as reference tables, copied to every
// node. Citus requires a distributed table's primary key and unique
// indexes to include its distribution column, and a foreign key between
// distributed tables to include it on both sides; a foreign key from a
// distributed table to a reference table is allowed as it is.

// lineLevel are the tables whose rows belong to one launch and come from
// its lines: distributed by launch_id.
var lineLevel = []string{"alarms", "classifier_checkpoints", "launch_events", "launch_gaps", "launch_phases", "line_blocks",
	"line_chunks", "line_keys", "line_templates", "lines", "signature_hits"}

// notLineLevel are the other tables with a launch_id, and where they go.
var notLineLevel = map[string]string{
	"annotations":       "a note is on a launch or on an incident (launch_id may be null): a reference table, small",
	"incident_launches": "a reference table with incidents (its key holds launch_id anyway)",
	"webhook_events":    "the outbox, whose launch_id may be null: local to the coordinator, like its deliveries",
}

// referenceTables may be referred to from a distributed table without
// launch_id in the key.
var referenceTables = []string{"rules", "users", "incidents", "webhooks", "api_tokens", "signatures"}

// Every line-level table keeps launch_id in its primary key, in every
// unique index, and in every foreign key but those to reference tables;
// every table with a launch_id is either line-level or says where it goes.
func TestLineLevelTablesKeepLaunchIDInTheirKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	var withLaunch []string
	rows, err := pool.Query(ctx, `SELECT c.relname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
			AND a.attname = 'launch_id' AND NOT a.attisdropped ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		withLaunch = append(withLaunch, name)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	for _, table := range withLaunch {
		if !slices.Contains(lineLevel, table) && notLineLevel[table] == "" {
			t.Errorf("table %s has a launch_id but is neither line-level nor placed in notLineLevel (docs/scale.md)", table)
		}
	}
	for _, table := range lineLevel {
		if !slices.Contains(withLaunch, table) {
			t.Errorf("line-level table %s has no launch_id column", table)
		}
	}

	// Every key of a line-level table: its primary key and unique
	// indexes (the columns they cover), its foreign keys (the columns
	// and the table they refer to).
	type key struct {
		table, kind, name, refers string
		columns                   []string
	}
	var keys []key
	rows, err = pool.Query(ctx, `
		SELECT c.relname, CASE con.contype WHEN 'p' THEN 'primary key' ELSE 'foreign key' END, con.conname,
			COALESCE(con.confrelid::regclass::text, ''),
			ARRAY(SELECT a.attname::text FROM unnest(con.conkey) k JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k)
		FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
		WHERE c.relname = ANY($1) AND con.contype IN ('p', 'f') AND con.conparentid = 0
		UNION ALL
		SELECT c.relname, 'unique index', i.relname, '',
			ARRAY(SELECT a.attname::text FROM unnest(x.indkey) k JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k)
		FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
		WHERE c.relname = ANY($1) AND x.indisunique AND NOT x.indisprimary
		ORDER BY 1, 2, 3`, lineLevel)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k key
		if err := rows.Scan(&k.table, &k.kind, &k.name, &k.refers, &k.columns); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	primary := map[string]bool{}
	for _, k := range keys {
		if k.kind == "primary key" {
			primary[k.table] = true
		}
		if k.kind == "foreign key" && slices.Contains(referenceTables, k.refers) {
			continue // to a reference table: allowed as it is
		}
		if !slices.Contains(k.columns, "launch_id") {
			t.Errorf("%s: %s %s (%s%s) lacks launch_id: Citus could not distribute %s by launch",
				k.table, k.kind, k.name, strings.Join(k.columns, ", "), refersTo(k.refers), k.table)
		}
	}
	var missing []string
	for _, table := range lineLevel {
		if !primary[table] {
			missing = append(missing, table)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("line-level tables without a primary key: %v", missing)
	}
}

func refersTo(table string) string {
	if table == "" {
		return ""
	}
	return " → " + table
}

// TestBlockTextsAreStoredAsGiven: every partition of line_blocks, those of
// the migrations and those made for new launches alike, stores a block's
// texts (zstd already, line_block_text.go) without compressing them again:
// STORAGE EXTERNAL.
func TestBlockTextsAreStoredAsGiven(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	if _, err := st.EnsureLaunch(ctx, "a", launchid.Attrs{}); err != nil { // makes its partitions
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `
		SELECT c.relname, a.attstorage FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'texts'
		WHERE c.relname ~ '^line_blocks(_p[0-9]+)?$' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for rows.Next() {
		var name, storage string
		if err := rows.Scan(&name, &storage); err != nil {
			t.Fatal(err)
		}
		got[name] = storage
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) < 2 {
		t.Fatalf("line_blocks and its partitions: %v", got)
	}
	for name, storage := range got {
		if storage != "e" {
			t.Errorf("%s.texts has storage %q, want e (external)", name, storage)
		}
	}
}
