package classify

import "strings"

// source attributes a line to a process or rank: the grammars keep one
// event open per source, so lines of different sources never join one
// event. Untagged lines continue the source of the line just before when
// that source has an event open (a traceback after "[TP0] Scheduler hit an
// exception:").
//
// A collector's envelope may name the container or process (Prefix.Origin).
// The first origin of a launch is its own process: its lines keep the
// source they have without the envelope, so a log reads the same wrapped or
// not. Lines of any other origin (another compose service, another pid in
// journald, another pod with kubectl --prefix) get that origin in front of
// their source, so two containers' interleaved tracebacks stay two events.
func (s *State) source(p *Prefix) string {
	if p.Origin != "" && s.d.Origin == "" {
		s.d.Origin = p.Origin
	}
	other := ""
	if p.Origin != "" && p.Origin != s.d.Origin {
		other = p.Origin
		s.d.ManyOrigins = true
	}
	if p.Source != "" {
		return qualify(other, p.Source)
	}
	if s.d.CurSrc != "" && s.d.Prev.Src == s.d.CurSrc && originOf(s.d.CurSrc) == other && s.active(s.d.CurSrc) != nil {
		return s.d.CurSrc
	}
	return qualify(other, "")
}

// qualify puts an origin in front of a source: "@web-2 TP0", "@web-2".
// Origins have no spaces and tags never start with '@'.
func qualify(origin, src string) string {
	switch {
	case origin == "":
		return src
	case src == "":
		return "@" + origin
	}
	return "@" + origin + " " + src
}

// originOf is the origin qualify put in front of src, "" if none.
func originOf(src string) string {
	if !strings.HasPrefix(src, "@") {
		return ""
	}
	o, _, _ := strings.Cut(src[1:], " ")
	return o
}
