package store_test

import (
	"context"
	"regexp"
	"testing"

	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// The history of a database is named by its cluster, timeline and OID: a
// database restored from a copy under the same name is another history.
func TestHistoryNamesTheDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := storetest.NewDB(t)
	b, _ := storetest.NewDB(t)
	ha, err := store.New(a).History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hb, err := store.New(b).History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^system=\d+; timeline=\d+; database=\d+$`).MatchString(ha) || ha == hb {
		t.Errorf("histories %q and %q: want system, timeline and database, different for two databases", ha, hb)
	}
	if again, err := store.New(a).History(ctx); err != nil || again != ha {
		t.Errorf("history read again = %q, %v; want %q", again, err, ha)
	}
}
