package classify

import "testing"

// TestRecogniserTable: every grammar that opens events has a consumer for
// the state they open in, every consumer's state is one grammar's, and
// each entry is named (the table is where a newcomer adds a runtime).
func TestRecogniserTable(t *testing.T) {
	t.Parallel()
	for _, r := range recognisers {
		if r.name == "" {
			t.Errorf("an unnamed recogniser for state %d", r.st)
		}
		if r.open != nil && consumers[r.st] == nil {
			t.Errorf("%s opens events in state %d, which no recogniser consumes", r.name, r.st)
		}
		if r.open == nil && r.consume == nil {
			t.Errorf("%s neither opens nor consumes", r.name)
		}
	}
	if consumers[stClosed] != nil {
		t.Error("a closed event has a consumer")
	}
}
