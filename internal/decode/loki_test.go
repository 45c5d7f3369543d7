package decode

import (
	"maps"
	"testing"
	"time"

	"launchwatch/internal/launchid"
)

func TestParseLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     map[string]string
	}{
		{"Loki", `{host="y", job="x"}`, map[string]string{"host": "y", "job": "x"}},
		{"NoSpaces", `{level="info",app="a"}`, map[string]string{"level": "info", "app": "a"}},
		{"Escapes", `{path="C:\\logs", msg="say \"hi\""}`, map[string]string{"path": `C:\logs`, "msg": `say "hi"`}},
		{"UnescapedQuote", `{msg="say "hi"",app="a"}`, map[string]string{"msg": `say "hi"`, "app": "a"}},
		{"SpacesAroundEquals", `{ a = "1" ,b="2" }`, map[string]string{"a": "1", "b": "2"}},
		{"Empty", `{}`, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseLabels(tt.in)
			if err != nil || !maps.Equal(got, tt.want) {
				t.Errorf("ParseLabels(%s) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{``, `host="y"`, `{host=y}`, `{host="y"`, `{="y"}`, `{a="1}`, `{a="1",,b="2"}`} {
		if got, err := ParseLabels(bad); err == nil {
			t.Errorf("ParseLabels(%s) = %v, want an error", bad, got)
		}
	}
}

func TestLineKey(t *testing.T) {
	t.Parallel()
	ts := time.Unix(1_800_000_000, 5)
	k := LineKey(`{a="b"}`, ts, "x")
	same := LineKey(`{a="b"}`, ts, "x")
	if string(k) != string(same) || len(k) != 16 {
		t.Fatalf("keys %x and %x of the same entry differ (or are not 16 bytes)", k, same)
	}
	for name, other := range map[string][]byte{
		"OtherStream": LineKey(`{a="c"}`, ts, "x"),
		"OtherTime":   LineKey(`{a="b"}`, ts.Add(1), "x"),
		"OtherText":   LineKey(`{a="b"}`, ts, "y"),
		"Shifted":     LineKey(`{a="b"}x`, ts, ""),
	} {
		if string(other) == string(k) {
			t.Errorf("%s: same key %x", name, k)
		}
	}
}

func TestLaunchKeyFrom(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"sglang-7b":      "sglang-7b",
		" varlogs/app ":  "varlogs_app",
		"-lead":          "lead",
		"/var/log/x":     "var_log_x",
		"":               "",
		"a b:c@d+e=f.g-": "a_b:c@d+e=f.g-",
	} {
		if got := launchKeyFrom(in); got != want || got != "" && !launchid.KeyPattern.MatchString(got) {
			t.Errorf("launchKeyFrom(%q) = %q, want %q (a valid key)", in, got, want)
		}
	}
}
