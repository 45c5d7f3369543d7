package classify

// acMatcher is the Aho-Corasick automaton the classifier used as its literal
// prefilter before the gram matcher (matcher.go). It stays as the reference
// the gram matcher is checked against: both must find the same literals.
//
// Why it stays: the gram matcher hashes windows into a bloom filter and
// its misses would be silent (a signature that never fires); a different
// algorithm finding the same literals on the corpus and random text is the
// only check that it finds every occurrence.
type acMatcher struct {
	class  [256]uint8 // byte -> equivalence class; 0 = no literal uses it
	nclass int
	delta  []int32 // state*nclass + class -> next state
	next   []int32 // delta as row offsets, negated for states with outputs
	out    [][]int32
	npat   int
}

// newACMatcher builds the automaton for pats (matched case-insensitively).
func newACMatcher(pats []string) *acMatcher {
	m := &acMatcher{npat: len(pats)}
	next := uint8(1)
	for _, p := range pats {
		for i := 0; i < len(p); i++ {
			c := lower(p[i])
			if m.class[c] == 0 {
				m.class[c] = next
				next++
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}
	m.nclass = int(next)

	// Build the trie.
	type node struct {
		next map[uint8]int32
		fail int32
		out  []int32
	}
	nodes := []node{{next: map[uint8]int32{}}}
	for id, p := range pats {
		cur := int32(0)
		for i := 0; i < len(p); i++ {
			c := m.class[lower(p[i])]
			nx, ok := nodes[cur].next[c]
			if !ok {
				nx = int32(len(nodes))
				nodes = append(nodes, node{next: map[uint8]int32{}})
				nodes[cur].next[c] = nx
			}
			cur = nx
		}
		nodes[cur].out = append(nodes[cur].out, int32(id))
	}

	// Breadth-first failure links and the full transition table.
	m.delta = make([]int32, len(nodes)*m.nclass)
	queue := []int32{}
	for c := 1; c < m.nclass; c++ {
		if nx, ok := nodes[0].next[uint8(c)]; ok {
			m.delta[c] = nx
			queue = append(queue, nx)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		f := nodes[s].fail
		nodes[s].out = append(nodes[s].out, nodes[f].out...)
		for c := 1; c < m.nclass; c++ {
			if nx, ok := nodes[s].next[uint8(c)]; ok {
				nodes[nx].fail = m.delta[int(f)*m.nclass+c]
				m.delta[int(s)*m.nclass+c] = nx
				queue = append(queue, nx)
			} else {
				m.delta[int(s)*m.nclass+c] = m.delta[int(f)*m.nclass+c]
			}
		}
	}
	// Renumber states breadth first so that the shallow states, where the
	// automaton spends most of its time, share a few cache lines.
	order := make([]int32, 0, len(nodes)) // new -> old
	newID := make([]int32, len(nodes))    // old -> new
	order = append(order, 0)
	for i := 0; i < len(order); i++ {
		old := order[i]
		for c := 1; c < m.nclass; c++ {
			if nx, ok := nodes[old].next[uint8(c)]; ok {
				newID[nx] = int32(len(order))
				order = append(order, nx)
			}
		}
	}
	m.out = make([][]int32, len(nodes))
	m.next = make([]int32, len(m.delta))
	for ni, old := range order {
		m.out[ni] = nodes[old].out
	}
	for ni, old := range order {
		for c := 0; c < m.nclass; c++ {
			st := newID[m.delta[int(old)*m.nclass+c]]
			v := st * int32(m.nclass)
			if len(m.out[st]) > 0 {
				v = -v
			}
			m.next[ni*m.nclass+c] = v
		}
	}
	m.delta = nil
	return m
}

// scan calls hit for every pattern found in s (possibly more than once).
func (m *acMatcher) scan(s string, hit func(pat int32)) {
	// next holds row offsets (state*nclass); a negative entry marks a state
	// with outputs, so the loop does one load and one test per byte.
	next, class := m.next, &m.class
	var row int32
	for i := 0; i < len(s); i++ {
		row = next[row+int32(class[s[i]])]
		if row < 0 {
			row = -row
			for _, p := range m.out[row/int32(m.nclass)] {
				hit(p)
			}
		}
	}
}
