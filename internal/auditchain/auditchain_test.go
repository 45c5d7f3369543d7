package auditchain

import (
	"errors"
	"strings"
	"testing"
)

// The bytes a hash covers are a format: rows hashed by an older server
// must verify with a newer CLI, so a change to them is a new version line.
func TestContentFormat(t *testing.T) {
	t.Parallel()
	r := Row{Seq: 3, ID: 17, AtMicro: 1772359200123456, Actor: "ada", Action: "alarm.dismiss", Subject: "alarm:k/2", Detail: `{"to": "dismissed"}`}
	want := "launchwatch audit v1\n1:3\n2:17\n16:1772359200123456\n3:ada\n13:alarm.dismiss\n9:alarm:k/2\n19:{\"to\": \"dismissed\"}\n"
	if got := string(Content(r)); got != want {
		t.Errorf("content = %q, want %q", got, want)
	}
	// A field that holds what looks like the next field's start is still
	// one field: lengths, not separators, say where fields end.
	a := Row{Seq: 1, Actor: "a\n1:b", Action: "c"}
	b := Row{Seq: 1, Actor: "a", Action: "b\n1:c"}
	if string(Content(a)) == string(Content(b)) {
		t.Errorf("two rows share their content")
	}
}

func TestVerifier(t *testing.T) {
	t.Parallel()
	rows := []Row{{Seq: 1, ID: 1, Actor: "a"}, {Seq: 2, ID: 2, Actor: "b"}, {Seq: 3, ID: 4, Actor: "c"}}
	hashes := [][]byte{}
	prev := Genesis
	for _, r := range rows {
		prev = Hash(prev, r)
		hashes = append(hashes, prev)
	}
	check := func(rows []Row, hashes [][]byte, headSeq int64, head []byte) error {
		v := NewVerifier()
		for i, r := range rows {
			if err := v.Check(r, hashes[i]); err != nil {
				return err
			}
		}
		return v.End(headSeq, head)
	}
	if err := check(rows, hashes, 3, hashes[2]); err != nil {
		t.Fatalf("a sound chain: %v", err)
	}
	edited := append([]Row(nil), rows...)
	edited[1].Actor = "mallory"
	for _, tt := range []struct {
		name   string
		err    error
		seq    int64
		reason string
	}{
		{"Edited", check(edited, hashes, 3, hashes[2]), 2, "changed after it was written"},
		{"Deleted", check([]Row{rows[0], rows[2]}, [][]byte{hashes[0], hashes[2]}, 3, hashes[2]), 2, "it is missing"},
		{"CutOff", check(rows[:2], hashes[:2], 3, hashes[2]), 3, "rows at the end were deleted"},
		{"HeadChanged", check(rows, hashes, 3, hashes[1]), 3, "the head was changed"},
	} {
		var be *BrokenError
		if !errors.As(tt.err, &be) || be.Seq != tt.seq || !strings.Contains(be.Reason, tt.reason) {
			t.Errorf("%s: %v, want broken at %d: %s", tt.name, tt.err, tt.seq, tt.reason)
		}
	}
	v := NewVerifier()
	v.Anchor.Seq, v.Anchor.Hash = 2, Hash(Genesis, Row{Seq: 9})
	if err := v.Check(rows[0], hashes[0]); err != nil {
		t.Fatal(err)
	}
	if err := v.Check(rows[1], hashes[1]); err == nil || !strings.Contains(err.Error(), "noted for it") {
		t.Errorf("an anchor that does not hold: %v", err)
	}
}
