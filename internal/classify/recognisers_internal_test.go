package classify

import (
	"slices"
	"strings"
	"testing"
)

// TestRecogniserTable: every grammar that opens events has a consumer for
// the state they open in, every consumer's state is one grammar's, and
// each entry is named (the table is where a newcomer adds a runtime).
func TestRecogniserTable(t *testing.T) {
	t.Parallel()
	for _, r := range recognisers {
		if r.name == "" {
			t.Errorf("an unnamed recogniser for state %d", r.st)
		}
		if r.open != nil && consumerOf(r.st) == nil {
			t.Errorf("%s opens events in state %d, which no recogniser consumes", r.name, r.st)
		}
		if r.open == nil && r.consume == nil {
			t.Errorf("%s neither opens nor consumes", r.name)
		}
	}
	if consumerOf(stClosed) != nil {
		t.Error("a closed event has a consumer")
	}
	if consumerOf(-1) != nil || consumerOf(evState(len(consumers))) != nil {
		t.Error("a state no grammar has has a consumer")
	}
	// The table lists exactly the openers whose first bytes include the
	// byte and whose needs the match holds, in the table's order.
	for c := range 256 {
		for has := range needTraceback << 1 {
			var want []uint8
			for i, r := range recognisers {
				if r.open != nil && (r.first == "" || strings.IndexByte(r.first, byte(c)) >= 0) && r.needs&^has == 0 {
					want = append(want, uint8(i))
				}
			}
			if !slices.Equal(openersFor[c][has], want) {
				t.Errorf("openersFor[%q][%b] = %v, want %v", byte(c), has, openersFor[c][has], want)
			}
		}
	}
}
