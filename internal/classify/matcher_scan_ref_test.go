package classify

// scanRef is the matcher's scan as it was before it compared literals
// eight bytes at a time: TestMatcherAgreesWithAhoCorasick checks the scan,
// BenchmarkMatcher compares the two.
func (m *matcher) scanRef(s string, hit func(pat int32)) {
	for _, id := range m.short {
		if indexFoldedASCII(s, m.folded[id]) >= 0 {
			hit(id)
		}
	}
	bloom := &m.bloom
	for i := 0; i+gramLen <= len(s); i += 2 {
		g := gramAt(s, i)
		h := gramHash(g)
		if bloom[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		b := h & (1<<bucketBits - 1)
		for _, e := range m.entries[m.start[b]:m.start[b+1]] {
			if at := i - int(e.off); e.gram == g && at >= 0 && refHasFoldedPrefix(s[at:], m.folded[e.pat]) {
				hit(e.pat)
			}
		}
	}
}

func refHasFoldedPrefix(s, f string) bool {
	if len(s) < len(f) {
		return false
	}
	for j := 0; j < len(f); j++ {
		if lower(s[j]) != f[j] {
			return false
		}
	}
	return true
}
