package classify

import (
	"reflect"
	"testing"
)

// TestPrevLineFields guards endLine, which sets the fields of prevLine one
// by one rather than by a composite literal: a field added to prevLine must
// be set there too, or it keeps the value of an older line.
func TestPrevLineFields(t *testing.T) {
	const set = 13 // N, Seq, Src, Level, Rank, Time, Body, Kind, Alarm, Benign, Thread, AuxThread, Intro
	if n := reflect.TypeFor[prevLine]().NumField(); n != set {
		t.Fatalf("prevLine has %d fields, endLine sets %d: set the new ones there", n, set)
	}
}
