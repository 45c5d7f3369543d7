package classify

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// dfa answers MatchString with a deterministic automaton built lazily from
// the expression's compiled program, one rune per step. Go's regexp
// backtracks: `File "[^"]*[/\\](?:...)` or `(?i)Error: .*(?:see root cause
// above|...)` try the rest of the expression at every byte of a line,
// microseconds per line. The automaton reads each byte once.
//
// A state is the set of program threads waiting for the next rune, and the
// class of the rune before it (start of text, newline, word byte, other),
// which is all the empty-width assertions (^ $ \A \z \b \B, and their
// multi-line forms) look at besides the next rune. An ASCII byte is its own
// symbol; the runes above it fall into a few intervals that no instruction
// of the expression tells apart (most expressions name no such rune: one
// interval), each one symbol. States and transitions are made on first use
// and shared by every goroutine: reads are atomic loads, building takes
// the mutex. An automaton that would need more than maxDFAStates states (a
// kilobyte each; the packs' expressions made 3,400 in all, at most 243 for
// one, on every corpus and families line), or one more state when all the
// automata of the process hold maxDFAStatesTotal (crafted lines could
// otherwise grow every one to its limit), or that tells more than
// maxWideSymbols intervals of non-ASCII runes apart on a line that has
// one, leaves the answer to the regexp.
type dfa struct {
	prog *syntax.Prog
	// wide holds the first rune of each interval of non-ASCII runes after
	// the first (which starts at 0x80): symbol 128+i is the runes from
	// wide[i-1] (0x80 for i = 0) to the next bound; nil with wideOK false
	// when there are too many.
	wide   []rune
	wideOK bool
	// anchored: every match starts at the start of the text (^, \A), so
	// no thread starts later and a state without threads is dead.
	anchored bool

	start *dstate
	full  atomic.Bool // no room for another state
	// total counts the states of the automata this one shares
	// maxDFAStatesTotal with: dfaStates, every automaton of the process
	// (a test's automata may have a count of their own).
	total *atomic.Int64

	mu    sync.Mutex         // guards what follows: building
	index map[string]*dstate // the states by key
	// scratch of closure and step
	stack []uint32
	seen  []bool
	runes []uint32
	next  []uint32
}

const (
	maxDFAStates      = 1024
	maxDFAStatesTotal = 16384 // about 20 MB
	maxWideSymbols    = 16
)

// dfaStates counts the states of every automaton of the process.
var dfaStates atomic.Int64

// Transitions to these say the answer: a thread reached Match before the
// rune, or (anchored) no thread is left. nil is a transition not built yet.
var (
	matchedState = &dstate{}
	deadState    = &dstate{}
)

// The class of the byte before a position: what EmptyOpContext needs of it.
const (
	ctxStart = iota
	ctxNewline
	ctxWord
	ctxOther
)

// ctxRune is a rune of each class, as EmptyOpContext's first argument.
var ctxRune = [4]rune{ctxStart: -1, ctxNewline: '\n', ctxWord: 'a', ctxOther: ' '}

type dstate struct {
	pcs  []uint32
	prev uint8
	next [128 + maxWideSymbols]atomic.Pointer[dstate]
	end  atomic.Uint32 // 0 not known, 1 no match at the end of the text, 2 a match
}

// newDFA is the automaton of the parsed and simplified expression t.
func newDFA(t *syntax.Regexp) (*dfa, error) {
	return newDFACounted(t, &dfaStates)
}

// newDFACounted is newDFA with its states counted in total.
func newDFACounted(t *syntax.Regexp, total *atomic.Int64) (*dfa, error) {
	prog, err := syntax.Compile(t)
	if err != nil {
		return nil, err
	}
	d := &dfa{prog: prog, index: map[string]*dstate{}, seen: make([]bool, len(prog.Inst)), total: total}
	d.wide, d.wideOK = wideBounds(prog)
	d.anchored = prog.StartCond()&syntax.EmptyBeginText != 0
	d.start, _ = d.addState([]uint32{uint32(prog.Start)}, ctxStart)
	return d, nil
}

// wideBounds is where the instructions of prog may answer differently
// between two neighbouring non-ASCII runes: the ends of their ranges, and
// for a literal rune under (?i) every rune it folds to (the Kelvin sign for
// k). It reports false when there are more than maxWideSymbols intervals.
func wideBounds(prog *syntax.Prog) ([]rune, bool) {
	var b []rune
	add := func(lo, hi rune) { // the runes lo..hi answer alike
		if lo > 0x80 {
			b = append(b, lo)
		}
		if hi >= 0x80 && hi < utf8.MaxRune {
			b = append(b, hi+1)
		}
	}
	for _, in := range prog.Inst {
		switch in.Op {
		case syntax.InstRune1:
			add(in.Rune[0], in.Rune[0])
		case syntax.InstRune:
			if len(in.Rune) == 1 {
				r := in.Rune[0]
				add(r, r)
				if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
					for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
						add(f, f)
					}
				}
				continue
			}
			for i := 0; i+1 < len(in.Rune); i += 2 {
				add(in.Rune[i], in.Rune[i+1])
			}
		}
	}
	slices.Sort(b)
	b = slices.Compact(b)
	if len(b)+1 > maxWideSymbols {
		return nil, false
	}
	return b, true
}

// symbol is the transition index of rune r (above 0x7f) and a rune of its
// interval, which every instruction answers as it answers r.
func (d *dfa) symbol(r rune) (int, rune) {
	i, lo := 0, rune(0x80)
	for i < len(d.wide) && d.wide[i] <= r {
		lo = d.wide[i]
		i++
	}
	return 128 + i, lo
}

// match reports whether the expression matches s; ok is false when the
// automaton cannot tell (no room for a state, or a non-ASCII rune in an
// expression that tells too many apart).
func (d *dfa) match(s string) (matched, ok bool) {
	if d.full.Load() {
		return false, false
	}
	st := d.start
	for i := 0; i < len(s); {
		sym, r := int(s[i]), rune(s[i])
		if sym < 0x80 {
			i++
		} else {
			if !d.wideOK {
				return false, false
			}
			var w int
			r, w = utf8.DecodeRuneInString(s[i:]) // an invalid byte is RuneError, as regexp reads it
			sym, r = d.symbol(r)
			i += w
		}
		next := st.next[sym].Load()
		if next == nil {
			if next = d.build(st, sym, r); next == nil {
				return false, false
			}
		}
		switch next {
		case matchedState:
			return true, true
		case deadState:
			return false, true
		}
		st = next
	}
	e := st.end.Load()
	if e == 0 {
		e = d.buildEnd(st)
	}
	return e == 2, true
}

// build makes st's transition on symbol sym, whose runes r stands for;
// nil when there is no room for the state it leads to.
func (d *dfa) build(st *dstate, sym int, r rune) *dstate {
	d.mu.Lock()
	defer d.mu.Unlock()
	if next := st.next[sym].Load(); next != nil {
		return next
	}
	flags := syntax.EmptyOpContext(ctxRune[st.prev], r)
	if d.closure(st.pcs, flags) {
		st.next[sym].Store(matchedState)
		return matchedState
	}
	d.next = d.next[:0]
	for _, pc := range d.runes {
		if in := &d.prog.Inst[pc]; matchesRune(in, r) {
			d.next = append(d.next, in.Out)
		}
	}
	if d.anchored {
		if len(d.next) == 0 {
			st.next[sym].Store(deadState)
			return deadState
		}
	} else {
		// Unanchored search: a match may start at the next rune too.
		d.next = append(d.next, uint32(d.prog.Start))
	}
	slices.Sort(d.next)
	d.next = slices.Compact(d.next)
	prev := uint8(ctxOther)
	switch {
	case r == '\n':
		prev = ctxNewline
	case syntax.IsWordChar(r):
		prev = ctxWord
	}
	next, ok := d.addState(d.next, prev)
	if !ok {
		return nil
	}
	st.next[sym].Store(next)
	return next
}

// buildEnd finds whether a thread of st matches at the end of the text.
func (d *dfa) buildEnd(st *dstate) uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	e := uint32(1)
	if d.closure(st.pcs, syntax.EmptyOpContext(ctxRune[st.prev], -1)) {
		e = 2
	}
	st.end.Store(e)
	return e
}

// closure follows the threads pcs through every instruction that reads no
// byte, with the empty-width conditions flags, into d.runes (the threads
// that read the next byte); it reports whether one reached Match.
func (d *dfa) closure(pcs []uint32, flags syntax.EmptyOp) bool {
	clear(d.seen)
	d.runes = d.runes[:0]
	d.stack = append(d.stack[:0], pcs...)
	matched := false
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.seen[pc] {
			continue
		}
		d.seen[pc] = true
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^flags == 0 {
				d.stack = append(d.stack, in.Out)
			}
		case syntax.InstMatch:
			matched = true
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			d.runes = append(d.runes, pc)
		}
	}
	return matched
}

func matchesRune(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRune1:
		return r == in.Rune[0]
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return in.MatchRune(r)
}

// addState finds or makes the state of threads pcs (sorted) after a byte
// of class prev; ok is false when there is no room for it.
func (d *dfa) addState(pcs []uint32, prev uint8) (*dstate, bool) {
	key := make([]byte, 1, 1+4*len(pcs))
	key[0] = prev
	for _, pc := range pcs {
		key = binary.LittleEndian.AppendUint32(key, pc)
	}
	if st, ok := d.index[string(key)]; ok {
		return st, true
	}
	if len(d.index) == maxDFAStates {
		d.full.Store(true)
		return nil, false
	}
	if d.total.Add(1) > maxDFAStatesTotal {
		d.total.Add(-1)
		d.full.Store(true) // states are never freed: no room for good
		return nil, false
	}
	st := &dstate{pcs: slices.Clone(pcs), prev: prev}
	d.index[string(key)] = st
	return st, true
}
