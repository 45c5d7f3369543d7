package classify

import "strings"

// matcher is the literal prefilter: one pass over a line finds every literal
// of every signature (ignoring ASCII case), so regular expressions run only
// on the few lines that contain one of their literals.
//
// It filters on grams of gramLen bytes, folded and hashed into a small
// bitmap that stays in L1 cache. Each literal is represented by two adjacent
// grams at an offset chosen to be rare in log text; every occurrence of the
// literal puts one of the two at an even position of the line, so the scan
// hashes only the windows at even positions, each independently (no chain
// of dependent loads as in an automaton), and only where a hash is set
// compares the literals of that bucket byte by byte. A literal of exactly
// gramLen bytes ("vllm") is one gram at an even position or, at an odd one,
// its first three bytes end the even window before it: that window is
// entered once for each value its first byte can fold to, and a literal of
// three ("://") the same way on either side. Literals shorter than that are
// few ("\r", "%|") and are searched for one by one.
type matcher struct {
	folded []string // the literals, ASCII lower-cased
	short  []int32  // literals shorter than gramLen-1
	tri    []int32  // literals of gramLen-1 bytes, filtered on grams too
	// shortPlain holds, for each of short, whether it has no ASCII letter
	// ("\r", "%|"): folding changes none of its bytes, and scan calls
	// indexByLastByte itself, which indexFoldedASCII would find after
	// checking the literal for letters on every line.
	shortPlain []bool

	bloom [1 << bloomBits / 64]uint64 // hash of a literal's grams -> set
	// The grams grouped by bucket (the low bucketBits of the bloom hash):
	// bucket b holds entries[start[b]:start[b+1]].
	start   [1<<bucketBits + 1]int32
	entries []gramEntry
}

type gramEntry struct {
	gram uint32 // folded as gramAt folds
	off  int32  // where the gram sits in the literal
	pat  int32
}

const (
	gramLen      = 4
	bloomBits    = 16 // 8 KB of bitmap
	bucketBits   = 10
	dfWeight     = 16
	sampleWeight = 8
)

// gramAt is the gramLen bytes of s at i as a little-endian word with bit 5
// of every byte set: A-Z fold onto a-z (other bytes may collide too, which
// the byte-wise comparison after a hit sorts out).
func gramAt(s string, i int) uint32 {
	return (uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24) | 0x20202020
}

func gramHash(g uint32) uint32 { return (g * 0x9E3779B1) >> (32 - bloomBits) }

// newMatcher builds the matcher for pats (matched case-insensitively).
// sample is log text (the packs' test lines): a gram frequent there is
// frequent in logs, and a literal is filtered on rarer ones of its own. The
// choice changes only the speed, never what is found.
func newMatcher(pats []string, sample ...string) *matcher {
	m := &matcher{folded: make([]string, len(pats))}
	var all []gramEntry
	// How many literals contain a gram predicts how common it is in log
	// text ("serv", "tion", "ing "): literals are fragments of log lines.
	df := map[uint32]int{}
	for _, p := range pats {
		f := foldASCII(p)
		seen := map[uint32]bool{}
		for o := 0; o+gramLen <= len(f); o++ {
			if g := gramAt(f, o); !seen[g] {
				seen[g] = true
				df[g]++
			}
		}
	}
	seen := map[uint32]int{} // occurrences in sample
	for _, l := range sample {
		f := foldASCII(l)
		for o := 0; o+gramLen <= len(f); o++ {
			seen[gramAt(f, o)]++
		}
	}
	used := map[uint32]int{} // grams already chosen: sharing one costs comparisons
	for id, p := range pats {
		f := foldASCII(p)
		m.folded[id] = f
		switch {
		case p == "":
			// compilePacks refuses empty literals.
		case len(p) == gramLen-1:
			// One byte short of a gram ("://"): an occurrence at an even
			// position starts the window there, which one byte more ends;
			// at an odd one it ends the window before it, which one byte
			// more starts. Each is entered once for each value that byte
			// can fold to; scan checks the one place neither window
			// reaches, the line's end.
			m.tri = append(m.tri, int32(id))
			g := gramAt(f+" ", 0) &^ (0xff << 24)
			for x := range uint32(256) {
				if x&0x20 != 0 {
					all = append(all, gramEntry{gram: g | x<<24, off: 0, pat: int32(id)},
						gramEntry{gram: x | g<<8, off: -1, pat: int32(id)})
				}
			}
		case len(p) < gramLen:
			m.short = append(m.short, int32(id))
			m.shortPlain = append(m.shortPlain, !hasLetter(f))
		case len(p) == gramLen:
			g := gramAt(f, 0)
			all = append(all, gramEntry{gram: g, off: 0, pat: int32(id)})
			for x := range uint32(256) {
				if x&0x20 != 0 { // the values a folded byte takes
					all = append(all, gramEntry{gram: x | g<<8, off: -1, pat: int32(id)})
				}
			}
		default:
			best, bestCost := 0, -1
			for o := 0; o+gramLen+1 <= len(f); o++ {
				g0, g1 := gramAt(f, o), gramAt(f, o+1)
				c := gramCost(f[o:o+gramLen]) + gramCost(f[o+1:o+1+gramLen]) +
					dfWeight*(df[g0]+df[g1]) + 64*(used[g0]+used[g1]) + sampleWeight*(seen[g0]+seen[g1])
				if bestCost < 0 || c < bestCost {
					best, bestCost = o, c
				}
			}
			for o := best; o <= best+1; o++ {
				g := gramAt(f, o)
				used[g]++
				all = append(all, gramEntry{gram: g, off: int32(o), pat: int32(id)})
			}
		}
	}
	var counts [1 << bucketBits]int32
	for _, e := range all {
		h := gramHash(e.gram)
		m.bloom[h/64] |= 1 << (h % 64)
		counts[h&(1<<bucketBits-1)]++
	}
	for b := range counts {
		m.start[b+1] = m.start[b] + counts[b]
	}
	m.entries = make([]gramEntry, len(all))
	fill := m.start
	for _, e := range all {
		b := gramHash(e.gram) & (1<<bucketBits - 1)
		m.entries[fill[b]] = e
		fill[b]++
	}
	return m
}

// gramCost is how common the bytes of a folded gram are in log text, by a
// rough table: spaces, digits and the frequent letters cost most.
func gramCost(g string) int {
	c := 0
	for i := 0; i < len(g); i++ {
		switch b := g[i]; {
		case b == ' ':
			c += 10
		case b >= '0' && b <= '9':
			c += 8
		case strings.IndexByte("etaoinsr", b) >= 0:
			c += 7
		case strings.IndexByte("ldcuhmpfg.:-/", b) >= 0:
			c += 6
		case strings.IndexByte("bywvk,_=[]'\"", b) >= 0:
			c += 4
		default:
			c += 2
		}
	}
	return c
}

// scan calls hit for every pattern found in s (possibly more than once).
func (m *matcher) scan(s string, hit func(pat int32)) {
	for k, id := range m.short {
		f := m.folded[id]
		var at int
		if m.shortPlain[k] {
			at = indexByLastByte(s, f)
		} else {
			at = indexFoldedASCII(s, f)
		}
		if at >= 0 {
			hit(id)
		}
	}
	if len(s) < gramLen {
		for _, id := range m.tri {
			if indexFoldedASCII(s, m.folded[id]) >= 0 {
				hit(id)
			}
		}
		return
	}
	if (len(s)-(gramLen-1))%2 == 0 {
		// An occurrence at the end, at an even position: no window holds it.
		for _, id := range m.tri {
			if hasFoldedPrefix(s[len(s)-(gramLen-1):], m.folded[id]) {
				hit(id)
			}
		}
	}
	bloom := &m.bloom
	// Bounded by n, not by i+gramLen <= len(s): then the compiler proves
	// the window's bytes in bounds (gramAt inlined) and checks none.
	n := len(s) - (gramLen - 1)
	for i := 0; i < n; i += 2 {
		g := gramAt(s, i)
		h := gramHash(g)
		if bloom[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		b := h & (1<<bucketBits - 1)
		for _, e := range m.entries[m.start[b]:m.start[b+1]] {
			if at := i - int(e.off); e.gram == g && at >= 0 && hasFoldedPrefix(s[at:], m.folded[e.pat]) {
				hit(e.pat)
			}
		}
	}
}

// hasFoldedPrefix reports whether s starts with f (lower-case ASCII)
// ignoring ASCII case. It compares eight bytes at a time: most literals
// are longer than that.
func hasFoldedPrefix(s, f string) bool {
	if len(s) < len(f) {
		return false
	}
	j := 0
	for ; j+8 <= len(f); j += 8 {
		if foldWord(load64(s, j)) != load64(f, j) {
			return false
		}
	}
	for ; j < len(f); j++ {
		if lower(s[j]) != f[j] {
			return false
		}
	}
	return true
}

// load64 is the 8 bytes of s at i as a little-endian word.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// foldWord is lower applied to each byte of w: bit 5 is set in the bytes
// 'A'..'Z' (found on their low seven bits, so that no sum carries into
// the next byte, and without bit 7).
func foldWord(w uint64) uint64 {
	const ones = 0x0101010101010101
	h := w &^ (0x80 * ones)
	upper := (h + (0x80-'A')*ones) &^ (h + (0x80-'Z'-1)*ones) &^ w & (0x80 * ones)
	return w | upper>>2
}

// indexFoldedASCII is the first index of f (non-empty, lower-case ASCII
// folded) in s ignoring ASCII case, -1 if none. It jumps between the
// occurrences of f's first byte (in either case) with IndexByte.
func indexFoldedASCII(s, f string) int {
	if !hasLetter(f) { // folding changes no byte of f
		if len(f) < gramLen {
			return indexByLastByte(s, f)
		}
		return strings.Index(s, f)
	}
	c0 := f[0]
	c1 := c0
	if c0 >= 'a' && c0 <= 'z' {
		c1 = c0 - 'a' + 'A'
	}
	best := -1
	for _, c := range [2]byte{c0, c1} {
		for off := 0; off < len(s); {
			i := indexByteFrom(s, off, c)
			if i < 0 || (best >= 0 && i >= best) {
				break
			}
			if hasFoldedPrefix(s[i:], f) {
				best = i
				break
			}
			off = i + 1
		}
		if c1 == c0 {
			break
		}
	}
	return best
}

// indexByLastByte is strings.Index(s, f) for a short f, found by
// IndexByte on its last byte: strings.Index of a two-byte needle ("%|")
// is a slower compare loop, and on a progress bar the '|' after the '%'
// is the rarer. Occurrences of one length end in the order they start.
func indexByLastByte(s, f string) int {
	last, n := f[len(f)-1], len(f)-1
	for off := n; off < len(s); {
		i := strings.IndexByte(s[off:], last)
		if i < 0 {
			return -1
		}
		if i += off; s[i-n:i] == f[:n] {
			return i - n
		}
		off = i + 1
	}
	return -1
}

func indexByteFrom(s string, off int, c byte) int {
	if j := strings.IndexByte(s[off:], c); j >= 0 {
		return off + j
	}
	return -1
}

// foldASCII lower-cases the ASCII letters of s and leaves every other byte.
func foldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lower(c)
	}
	return string(b)
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}
