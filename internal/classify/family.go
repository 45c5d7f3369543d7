package classify

import "strings"

// The server family of a launch is decided by accumulated evidence, not by
// the first line that names one: logs mention other servers ("vllm is not
// installed" in an SGLang log, a vllm path in a traceback), so each family
// keeps a score and the launch takes the leading family once it has enough,
// and changes it only when another family leads by a margin (hysteresis).
// A family given to New is fixed and never changes.
//
// Evidence comes from detect signatures (weighted, see Signature.Weight),
// from prefixes only one family writes (vLLM's "(EngineCore_DP0 pid=1)",
// SGLang's "[time TP0]", Ollama's "source=routes.go:", llama.cpp's
// "srv  update_slots:", "[TensorRT-LLM]") and from readiness lines that prove
// their family. A line that only mentions a family as missing or optional
// ("X is not installed", "pip install X", "No module named 'X'") counts
// against it.

// Evidence bounds and weights.
const (
	maxFamilies = 8   // families scored per launch; the lowest is dropped
	famMin      = -16 // a family mentioned as missing many times stays recoverable
	famMax      = 64  // a family there cannot be overtaken (famMargin): evidence stops
	famAdopt    = 2   // score from which an unknown launch takes a family
	famMargin   = 4   // lead a challenger needs over the current family

	wDetect  = 2  // a detect signature without its own weight
	wMention = -3 // a detect hit on a line that says the family is missing
	wPrefix  = 1  // a prefix only that family writes
	wReady   = 8  // a readiness line that proves its family
)

// famScore is one family's accumulated evidence.
type famScore struct {
	F string `json:"f"`
	S int    `json:"s"`
}

// isMention reports whether a line names a family only to say it is
// missing, optional or to be installed ("vllm is not installed", "pip
// install sglang", "Failed to import vllm", "No module named 'vllm'"): such
// lines are evidence against the family. Literal checks, not a regexp: this
// runs on every line a detect signature matches.
func isMention(body string) bool {
	if len(body) > 1024 {
		body = body[:1024]
	}
	imp := false
	for i := 0; i < len(body); i++ {
		switch lower(body[i]) {
		case 'i':
			if hasPrefixFold(body[i:], "install") {
				return true
			}
			imp = imp || hasPrefixFold(body[i:], "import")
		case 'n':
			if hasPrefixFold(body[i:], "no module named") || hasPrefixFold(body[i:], "not available") {
				return true
			}
		}
	}
	if !imp {
		return false
	}
	for _, w := range []string{"fail", "error", "cannot", "could not", "unable"} {
		if indexFold(body, w) >= 0 {
			return true
		}
	}
	return false
}

// hasPrefixFold is strings.HasPrefix ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// scopeFor is the family a signature is confirmed against for a launch of
// family server. A readiness line that proves its family is read as that
// family's whatever the launch was taken for so far: it may be the line that
// corrects a wrong guess.
func (g *Signature) scopeFor(server string) string {
	if g.Role == RoleReady && g.Family != "" {
		return g.Family
	}
	return server
}

// weight is the evidence a detect signature's line adds to its family.
func (g *Signature) weight() int {
	if g.Weight != 0 {
		return g.Weight
	}
	return wDetect
}

// observeFamily adds the evidence of one scanned line (its prefix and the
// detect signatures in s.h) and decides the family again.
func (s *State) observeFamily(p *Prefix) {
	pf, read := "", false // prefixFamily(p), read once
	if p.Origin != "" {
		pf, read = s.noteFamilyOrigin(p)
	}
	if s.d.Fixed || s.d.Server != "" && s.d.Fam.score(s.d.Server) >= famMax {
		return // no evidence can change the family any more
	}
	if !read {
		pf = prefixFamily(p)
	}
	changed := false
	if pf != "" {
		s.d.Fam.add(pf, wPrefix, s.d.Server)
		changed = true
	}
	mention := -1 // computed once, when a detect signature needs it
	for _, si := range s.h.sigs {
		g := s.rs.sigs[si]
		if g.Role != RoleDetect || g.Family == "" || !g.confirm(p, "") {
			continue
		}
		w := g.weight()
		if w >= 3 {
			// Wording only that family prints is never a mere mention.
			s.d.Fam.add(g.Family, w, s.d.Server)
			changed = true
			continue
		}
		if mention < 0 {
			mention = 0
			if isMention(p.Body) {
				mention = 1
			}
		}
		if mention == 1 {
			w = wMention
		}
		s.d.Fam.add(g.Family, w, s.d.Server)
		changed = true
	}
	if changed {
		s.d.Server = s.d.Fam.decide(s.d.Server)
	}
}

// readyEvidence counts a readiness line that proves its family.
func (s *State) readyEvidence(family string) {
	if s.d.Fixed || family == "" {
		return
	}
	s.d.Fam.add(family, wReady, s.d.Server)
	s.d.Server = s.d.Fam.decide(s.d.Server)
}

// famVotes is the per-family evidence of a launch, at most maxFamilies
// entries: what the family detection decides from (decide).
type famVotes []famScore

// add adds w to family f's score, keeping at most maxFamilies; the current
// family (cur) is never the one dropped for a newcomer.
func (v *famVotes) add(f string, w int, cur string) {
	fam := *v
	for i := range fam {
		if fam[i].F == f {
			fam[i].S = min(max(fam[i].S+w, famMin), famMax)
			return
		}
	}
	sc := famScore{F: f, S: min(max(w, famMin), famMax)}
	if len(fam) < maxFamilies {
		*v = append(fam, sc)
		return
	}
	low := 0
	for i := range fam {
		if fam[i].S < fam[low].S {
			low = i
		}
	}
	if fam[low].F != cur && fam[low].S < sc.S {
		fam[low] = sc
	}
}

// score is family f's score, 0 if it has none.
func (v famVotes) score(f string) int {
	for _, x := range v {
		if x.F == f {
			return x.S
		}
	}
	return 0
}

// decide is the family the evidence gives a launch taken for cur so far:
// an unknown launch takes a family from famAdopt; a known one changes only
// when a challenger leads it by famMargin, or when its own evidence fell
// to zero. Ties keep the family scored first, so the decision does not
// depend on anything but the lines seen.
func (v famVotes) decide(cur string) string {
	best := -1
	for i := range v {
		if best < 0 || v[i].S > v[best].S {
			best = i
		}
	}
	if best < 0 {
		return cur
	}
	b := v[best]
	if b.F == cur {
		return cur
	}
	curScore := v.score(cur)
	switch {
	case cur == "" || curScore <= 0:
		if b.S >= famAdopt {
			return b.F
		}
		return "" // no family yet, or the only evidence for it was taken back
	case b.S >= curScore+famMargin:
		return b.F
	}
	return cur
}

// prefixFamily is the family whose own prefix the line carries, "" if none.
func prefixFamily(p *Prefix) string {
	full := p.full
	switch {
	case p.Source != "" && (strings.Contains(p.Source, "EngineCore") || strings.HasPrefix(p.Source, "APIServer") ||
		strings.HasPrefix(p.Source, "VllmWorker") || strings.HasPrefix(p.Source, "Worker_TP")):
		return "vllm" // vLLM V1's process tags
	case p.Rank != "" && len(full) > 2 && full[0] == '[' && isDigit(full[1]) && strings.Contains(p.Rank, "TP"):
		return "sglang" // "[2025-01-01 10:00:00 TP0] " scheduler lines
	case strings.HasPrefix(full, "[TensorRT-LLM]"):
		return "trtllm"
	case strings.HasPrefix(full, "time=") && isGoSlogSource(full) && !dependencyOrigin(p.Origin):
		// "time=... level=INFO source=routes.go:1234 msg=...": Go's slog
		// with its source, which Prometheus's and other Go services'
		// logs beside the model server have too.
		return "ollama"
	case isLlamaServerTag(p.Body):
		return "llamacpp"
	case isVLLMStamp(full):
		return "vllm" // vllm/logger.py: "%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] "
	}
	return ""
}

// isVLLMStamp reports whether a line starts, after any "(Proc pid=1) " tag,
// with vLLM's logger prefix "INFO 01-02 03:04:05 [file.py:12] ": a level
// word, a month-day time without a year and a bracketed file:line.
func isVLLMStamp(full string) bool {
	if strings.HasPrefix(full, "(") {
		if i := strings.Index(full, ") "); i > 0 && i < 96 {
			full = full[i+2:]
		}
	}
	sp := strings.IndexByte(full, ' ')
	if sp < 4 || sp > 8 || normLevel(full[:sp]) == "" {
		return false
	}
	r := full[sp+1:]
	if len(r) < 18 || !isDigit(r[0]) || r[2] != '-' || r[5] != ' ' || r[8] != ':' || r[11] != ':' {
		return false
	}
	r = strings.TrimLeft(r[14:], " ") // vLLM may add milliseconds' padding in newer releases
	if r != "" && isDigit(r[0]) {
		return false
	}
	if !strings.HasPrefix(r, "[") {
		return false
	}
	end := strings.IndexByte(r, ']')
	return end > 3 && end < 80 && strings.Contains(r[:end], ".py:")
}

// isGoSlogSource reports whether a logfmt line names a Go source file in
// its source= field, as Ollama's slog handler writes it.
func isGoSlogSource(full string) bool {
	head := full
	if len(head) > 120 {
		head = head[:120]
	}
	i := strings.Index(head, " source=")
	if i < 0 {
		return false
	}
	rest := head[i+len(" source="):]
	if sp := strings.IndexByte(rest, ' '); sp >= 0 {
		rest = rest[:sp]
	}
	return strings.Contains(rest, ".go:")
}

// isLlamaServerTag reports whether body starts with the tag llama.cpp's
// server writes before each message: "srv  load_model: ", "slot launch_slot_: ",
// "que    start_loop: " (a three- or four-letter tag, spaces, a C function
// name, a colon).
func isLlamaServerTag(body string) bool {
	var rest string
	switch {
	case strings.HasPrefix(body, "srv "):
		rest = body[4:]
	case strings.HasPrefix(body, "slot "):
		rest = body[5:]
	case strings.HasPrefix(body, "que "):
		rest = body[4:]
	default:
		return false
	}
	rest = strings.TrimLeft(rest, " ")
	n := 0
	for n < len(rest) && n < 40 && (isIdentByte(rest[n])) {
		n++
	}
	return n > 0 && n+1 < len(rest) && rest[n] == ':' && rest[n+1] == ' '
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
