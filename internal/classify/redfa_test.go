package classify

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"launchwatch/internal/corpustest"
)

// checkDFA holds the automaton of expr to regexp on s: the same answer
// whenever it gives one. It reports whether it gave one.
func checkDFA(t *testing.T, d *dfa, re *regexp.Regexp, s string) bool {
	t.Helper()
	got, ok := d.match(s)
	if ok && got != re.MatchString(s) {
		t.Fatalf("%s on %q: automaton %v, regexp %v", re, s, got, !got)
	}
	return ok
}

// testDFA is the automaton of expr.
func testDFA(t *testing.T, expr string) *dfa {
	t.Helper()
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	d, err := newDFA(re.Simplify())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDFAMatchesRegexp holds the automaton to regexp for every expression
// of the embedded packs, on the packs' test lines, corpus and families
// lines, and those lines cut, re-cased and salted around their words; it
// must answer nearly always (else the regexp does the work and the
// automaton only costs). Its automata are its own, their states counted
// apart from the process's: the packs' shared ones have grown on whatever
// the package's other tests fed them by then, and could be out of room.
func TestDFAMatchesRegexp(t *testing.T) {
	t.Parallel()
	exprs, lines := packExpressions()
	var total atomic.Int64
	automata := make([]*dfa, len(exprs))
	for i, lr := range exprs {
		re, err := syntax.Parse(lr.re.String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if automata[i], err = newDFACounted(re.Simplify(), &total); err != nil {
			t.Fatal(err)
		}
	}
	// Every line of the corpus, every twentieth of the families, cut to a
	// kilobyte (the test runs under -race in CI), then half as many again
	// cut and salted.
	for _, l := range corpustest.Lines(t) {
		lines = append(lines, truncate(l, 1024))
	}
	for i, l := range corpustest.Lines(t, "../../testdata/families") {
		if i%20 == 0 {
			lines = append(lines, truncate(l, 1024))
		}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	salt := []string{" ", "_", "a", "Z", "9", ".", "\"", "/", "\\", ":", "\n", "(", ")", "é", "\u212a"}
	for i, n := 0, len(lines); i < n/2; i++ {
		l := lines[rng.IntN(n)]
		if len(l) > 1 {
			l = l[rng.IntN(len(l)/2+1):]
		}
		switch rng.IntN(3) {
		case 0:
			l = strings.ToUpper(l)
		case 1:
			l = strings.ToLower(l)
		}
		lines = append(lines, salt[rng.IntN(len(salt))]+l+salt[rng.IntN(len(salt))])
	}
	answered, asked := 0, 0
	for i, lr := range exprs {
		for _, l := range lines {
			asked++
			if checkDFA(t, automata[i], lr.re, l) {
				answered++
			}
		}
	}
	if answered < asked*99/100 {
		t.Fatalf("the automata answered %d of %d matches", answered, asked)
	}
}

// TestDFAEmptyWidthAndFolding holds made-up expressions with every
// empty-width assertion, case folding, classes, non-ASCII runes and
// repetition to regexp on every string of up to four symbols over an
// alphabet of the byte and rune classes those look at, and longer random
// ones.
func TestDFAEmptyWidthAndFolding(t *testing.T) {
	t.Parallel()
	exprs := []string{
		`ab`, `^ab`, `ab$`, `^$`, `\Aa`, `a\z`, `\bab\b`, `a\B`, `\Ba`, `(?m)^b`, `(?m)a$`, `(?m)^$`,
		`(?i)ab`, `(?i)\bAB`, `(?i)k`, `a.*b`, `(?s)a.*b`, `[^"]*x`, `^\s*(?:> )?a"[^"]*[/_](?:b|ab)`,
		`a|^b|c$`, `(?:a|b)+_`, `a{2,3}`, `(?i)[a-c]+\b`, `x?`, `\W\w`, `(?U)a+?b`, `^(?:[a-z_]\w*\.)*[a-z]\w*(?:A|B): \S`,
		`é`, `(?i)é`, `[à-ÿ]x`, `\x{FFFD}`, `[^a"]+"`, `\S+$`, `(?i)\bk\b`, `a.b`, `[\x{2000}-\x{3000}]`, `\pL\d`,
	}
	// ASCII bytes of each class, runes of two and three bytes (the Kelvin
	// sign folds onto k), a replacement rune and a byte that is no UTF-8.
	alphabet := []string{"a", "b", "A", "K", "x", "_", " ", "\n", "\"", ".", "/", "é", "\u212a", "\ufffd", "\xff"}
	var strs []string
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		strs = append(strs, prefix)
		if n == 4 {
			return
		}
		for _, c := range alphabet {
			grow(prefix+c, n+1)
		}
	}
	grow("", 0)
	rng := rand.New(rand.NewPCG(3, 5))
	for range 5000 {
		var b strings.Builder
		for range 5 + rng.IntN(8) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		strs = append(strs, b.String())
	}
	for _, e := range exprs {
		d := testDFA(t, e)
		re := regexp.MustCompile(e)
		if d.wideOK == (e == `\pL\d`) {
			t.Fatalf("%s: tells non-ASCII runes apart: %v", e, d.wideOK)
		}
		for _, s := range strs {
			// Only an expression that tells too many intervals of
			// runes apart (letters) may leave a non-ASCII line to regexp.
			if !checkDFA(t, d, re, s) && (d.wideOK || isASCII(s)) {
				t.Fatalf("%s on %q: no answer", e, s)
			}
		}
	}
}

// TestDFAOutOfStates checks that an automaton without room for its states
// leaves the answer to the regexp instead of giving a wrong one.
func TestDFAOutOfStates(t *testing.T) {
	t.Parallel()
	const expr = `a[ab]{12}$` // 2^12 states to tell where the a was, more than maxDFAStates
	d := testDFA(t, expr)
	re := regexp.MustCompile(expr)
	rng := rand.New(rand.NewPCG(1, 2))
	gaveUp := false
	for range 2000 {
		b := make([]byte, 40)
		for i := range b {
			b[i] = "ab"[rng.IntN(2)]
		}
		if !checkDFA(t, d, re, string(b)) {
			gaveUp = true
		}
	}
	if !gaveUp {
		t.Fatal("the automaton never ran out of states")
	}
}

// TestDFAOutOfProcessStates checks that an automaton leaves the answer to
// the regexp once the automata of the process hold maxDFAStatesTotal
// states. It is not parallel: it fills the process's count for a moment.
func TestDFAOutOfProcessStates(t *testing.T) {
	const expr = `(?i)error: .*failed`
	d := testDFA(t, expr)
	re := regexp.MustCompile(expr)
	saved := dfaStates.Swap(maxDFAStatesTotal)
	defer dfaStates.Store(saved)
	for _, s := range []string{"Error: it failed", "error: fine", "nothing"} {
		if got, ok := d.match(s); ok {
			t.Fatalf("%q: the automaton answered %v with no room for its states", s, got)
		}
		if lr := (&leadRegexp{re: re, d: d}); lr.MatchString(s) != re.MatchString(s) {
			t.Fatalf("%q: %v, regexp says %v", s, lr.MatchString(s), re.MatchString(s))
		}
	}
}

// TestDFAConcurrent matches from many goroutines while the states are
// being built (run under -race in CI).
func TestDFAConcurrent(t *testing.T) {
	t.Parallel()
	const expr = `(?i)\b(?:error|exception): .*(?:root cause|failed)\b`
	d := testDFA(t, expr)
	re := regexp.MustCompile(expr)
	words := []string{"Error: ", "exception: ", "root cause", "failed", "x", " ", "FAILED", "_"}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for range 3000 {
				var b strings.Builder
				for range rng.IntN(8) {
					b.WriteString(words[rng.IntN(len(words))])
				}
				s := b.String()
				if got, ok := d.match(s); ok && got != re.MatchString(s) {
					errs <- s
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Fatalf("%s on %q: the automaton disagrees with regexp", expr, s)
	}
}
