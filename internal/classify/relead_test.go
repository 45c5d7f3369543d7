package classify

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"launchwatch/internal/corpustest"
)

// TestLeadRegexpMatchesRegexp holds the lead-literal shortcut to plain
// regexp matching for every expression of the embedded packs: on the packs'
// own test lines, on corpus lines, and on those cut, re-cased and
// salted with word bytes, non-ASCII runes (the Kelvin sign folds onto k
// under (?i)) and invalid UTF-8 around the literals.
func TestLeadRegexpMatchesRegexp(t *testing.T) {
	t.Parallel()
	exprs, lines := packExpressions()
	// Without lead literals MatchString is the regexp itself.
	var withLits []*leadRegexp
	for _, lr := range exprs {
		if lr.lits != nil {
			withLits = append(withLits, lr)
		}
	}
	if len(withLits) < 10 {
		t.Fatalf("only %d of %d expressions have lead literals: the shortcut is not exercised", len(withLits), len(exprs))
	}
	exprs = withLits
	files, _ := filepath.Glob(filepath.Join(corpustest.Dir(t), "*.log"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Every tenth line, cut to 512 bytes, keeps the test fast.
		for i, l := range strings.Split(string(data), "\n") {
			if i%10 == 0 {
				lines = append(lines, truncate(l, 512))
			}
		}
	}
	check := func(s string) {
		t.Helper()
		for _, lr := range exprs {
			if got, want := lr.MatchString(s), lr.re.MatchString(s); got != want {
				t.Fatalf("%s on %q: %v, regexp says %v", lr.re, s, got, want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(13, 8))
	salt := []string{"a", "_", " ", "\u212a", "\u017f", "\xe2", "\x84", "é", "\n", "-", "9", ":"}
	pick := func() string { return lines[rng.IntN(len(lines))] }
	for _, l := range lines {
		check(l)
	}
	for range 200 {
		s := pick()
		switch rng.IntN(4) {
		case 0:
			s = strings.ToUpper(s)
		case 1:
			s = strings.ToLower(s)
		case 2:
			if len(s) > 1 {
				s = s[rng.IntN(len(s)):]
			}
		}
		if rng.IntN(2) == 0 && len(s) > 0 {
			i := rng.IntN(len(s))
			s = s[:i] + salt[rng.IntN(len(salt))] + s[i:]
		}
		if rng.IntN(3) == 0 {
			s = salt[rng.IntN(len(salt))] + s
		}
		check(s)
		check(s + " " + pick())
	}
}

// packExpressions is every expression of the embedded packs' signatures
// (regex and unless), and the packs' test lines.
func packExpressions() (exprs []*leadRegexp, lines []string) {
	for _, g := range defaultRules().sigs {
		for _, lr := range []*leadRegexp{g.re, g.unless} {
			if lr != nil {
				exprs = append(exprs, lr)
			}
		}
		lines = append(lines, g.Tests...)
		lines = append(lines, g.NotTests...)
	}
	return exprs, lines
}
