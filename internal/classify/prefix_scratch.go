package classify

import (
	"slices"
	"strings"
	"unsafe"
)

// stripBuf is where the classifier strips the real ESC colour codes of a
// line (one in nine of the corpus, vLLM's "\x1b[1;36m(EngineCore_DP0
// pid=1)\x1b[0;0m INFO ..."), instead of a new string for each: the copy
// was most of stripANSI's cost and a tenth of the bytes Feed allocated.
//
// The stripped text is a view of buf, valid until the next line is
// stripped, so parse hands no field of the Prefix out in it (own): a field
// that lies within one run of bytes kept from the line is taken from the
// line itself (the body after the last colour code, the process tag between
// two), any other is copied. Only Prefix.full stays a view: it is read
// while its line is classified (the signature scan, prefixFamily) and kept
// by nothing.
type stripBuf struct {
	buf  []byte
	kept []keptRun
	line string // the line buf was stripped from, until own is done
}

// keptRun is a run of n bytes kept from the line: line[from:from+n] is
// buf[at:at+n].
type keptRun struct{ at, from, n int }

// maxStripBuf bounds buf, which a State keeps: a longer coloured line is
// stripped into a string of its own, as by stripESC.
const maxStripBuf = 4 << 10

// stripESC is stripESC(s, i) as a view of buf (see stripBuf).
func (sc *stripBuf) stripESC(s string, i int) string {
	sc.line = s
	sc.buf = slices.Grow(sc.buf[:0], len(s))
	sc.kept = sc.kept[:0]
	from := 0 // where s starts in the line
	for i >= 0 {
		sc.keep(from, s[:i])
		skip := i + 1
		if rest := s[i+1:]; rest != "" && rest[0] == '[' {
			j := 1
			for j < len(rest) && (rest[j] < 0x40 || rest[j] > 0x7e) {
				j++
			}
			skip += min(j+1, len(rest))
		}
		from += skip
		s = s[skip:]
		i = strings.IndexByte(s, 0x1b)
	}
	sc.keep(from, s)
	if len(sc.buf) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(sc.buf), len(sc.buf))
}

func (sc *stripBuf) keep(from int, run string) {
	if run == "" {
		return
	}
	sc.kept = append(sc.kept, keptRun{at: len(sc.buf), from: from, n: len(run)})
	sc.buf = append(sc.buf, run...)
}

// own is f as a string that does not lie in buf: f itself when it does not,
// the same bytes of the line when they were kept in one run, else a copy.
func (sc *stripBuf) own(f string) string {
	if len(sc.buf) == 0 || f == "" {
		return f
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(sc.buf)))
	at := uintptr(unsafe.Pointer(unsafe.StringData(f)))
	if at < base || at >= base+uintptr(len(sc.buf)) {
		return f
	}
	off := int(at - base)
	for _, r := range sc.kept {
		if off >= r.at && off+len(f) <= r.at+r.n {
			return sc.line[r.from+off-r.at:][:len(f)]
		}
	}
	return strings.Clone(f)
}

// settle makes every exported field of p own its bytes (own), and lets go
// of the line.
func (sc *stripBuf) settle(p *Prefix) {
	p.Level = sc.own(p.Level)
	p.Rank = sc.own(p.Rank)
	p.Source = sc.own(p.Source)
	p.Origin = sc.own(p.Origin)
	p.Body = sc.own(p.Body)
	sc.line = ""
}
