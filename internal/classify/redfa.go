package classify

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"sync"
	"sync/atomic"
)

// dfa answers MatchString for ASCII input with a deterministic automaton
// built lazily from the expression's compiled program, one byte per step.
// Go's regexp backtracks: `File "[^"]*[/\\](?:...)` or `(?i)Error: .*(?:see
// root cause above|...)` try the rest of the expression at every byte of a
// line, microseconds per line. The automaton reads each byte once.
//
// A state is the set of program threads waiting for the next byte, and the
// class of the byte before it (start of text, newline, word byte, other),
// which is all the empty-width assertions (^ $ \A \z \b \B, and their
// multi-line forms) look at besides the next byte. States and transitions
// are made on first use and shared by every goroutine: reads are atomic
// loads, building takes the mutex. An automaton that would need more than
// maxDFAStates states (half a kilobyte each; the packs' expressions made
// 3,400 in all, at most 243 for one, on every corpus and families line),
// or a line with a byte above 0x7f, leaves the answer to the regexp.
type dfa struct {
	prog *syntax.Prog

	states [maxDFAStates]atomic.Pointer[dstate]
	full   atomic.Bool // no room for another state

	mu    sync.Mutex // guards what follows: building
	n     int
	index map[string]uint32 // a state's key -> its index
	// scratch of closure and step
	stack []uint32
	seen  []bool
	runes []uint32
	next  []uint32
}

const maxDFAStates = 1024

// Transition values: 0 not built yet, tMatch the expression matched (a
// thread reached Match before the byte), otherwise tState+index.
const (
	tUnbuilt = 0
	tMatch   = 1
	tState   = 2
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
	next [128]atomic.Uint32
	end  atomic.Uint32 // 0 not known, 1 no match at the end of the text, 2 a match
}

func newDFA(re string) (*dfa, error) {
	t, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(t.Simplify())
	if err != nil {
		return nil, err
	}
	d := &dfa{prog: prog, index: map[string]uint32{}, seen: make([]bool, len(prog.Inst))}
	d.addState([]uint32{uint32(prog.Start)}, ctxStart)
	return d, nil
}

// match reports whether the expression matches s; ok is false when the
// automaton cannot tell (a byte above 0x7f, or no room for a state).
func (d *dfa) match(s string) (matched, ok bool) {
	if d.full.Load() {
		return false, false
	}
	st := d.states[0].Load()
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false, false
		}
		t := st.next[c].Load()
		if t == tUnbuilt {
			if t = d.build(st, c); t == tUnbuilt {
				return false, false
			}
		}
		if t == tMatch {
			return true, true
		}
		st = d.states[t-tState].Load()
	}
	e := st.end.Load()
	if e == 0 {
		e = d.buildEnd(st)
	}
	return e == 2, true
}

// build makes st's transition on c.
func (d *dfa) build(st *dstate, c byte) uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if t := st.next[c].Load(); t != tUnbuilt {
		return t
	}
	flags := syntax.EmptyOpContext(ctxRune[st.prev], rune(c))
	if d.closure(st.pcs, flags) {
		st.next[c].Store(tMatch)
		return tMatch
	}
	d.next = d.next[:0]
	for _, pc := range d.runes {
		if in := &d.prog.Inst[pc]; matchesByte(in, rune(c)) {
			d.next = append(d.next, in.Out)
		}
	}
	// Unanchored search: a match may start at the next byte too (an
	// expression anchored at the start fails its ^ there, in the closure).
	d.next = append(d.next, uint32(d.prog.Start))
	slices.Sort(d.next)
	d.next = slices.Compact(d.next)
	prev := uint8(ctxOther)
	switch {
	case c == '\n':
		prev = ctxNewline
	case syntax.IsWordChar(rune(c)):
		prev = ctxWord
	}
	i, ok := d.addState(d.next, prev)
	if !ok {
		return tUnbuilt
	}
	st.next[c].Store(tState + i)
	return tState + i
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

func matchesByte(in *syntax.Inst, r rune) bool {
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
func (d *dfa) addState(pcs []uint32, prev uint8) (uint32, bool) {
	key := make([]byte, 1, 1+4*len(pcs))
	key[0] = prev
	for _, pc := range pcs {
		key = binary.LittleEndian.AppendUint32(key, pc)
	}
	if i, ok := d.index[string(key)]; ok {
		return i, true
	}
	if d.n == maxDFAStates {
		d.full.Store(true)
		return 0, false
	}
	i := uint32(d.n)
	d.n++
	d.index[string(key)] = i
	d.states[i].Store(&dstate{pcs: slices.Clone(pcs), prev: prev})
	return i, true
}
