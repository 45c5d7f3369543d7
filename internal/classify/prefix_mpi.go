package classify

import "strings"

// eatMPITag reads the tag Open MPI's mpirun writes before every line of its
// ranks with --tag-output (or --output tag): "[1,0]<stdout>:", where 1 is
// the job and 0 the rank; the stream is stdout, stderr or stddiag. Without
// it, a rank's Python traceback under mpirun (trtllm-serve, TensorRT-LLM
// workers) would not be read as one: its frames carry the tag first.
func (p *Prefix) eatMPITag(s string) (string, bool) {
	// The job is the digits up to the first comma: a bracket whose digits
	// end in another byte (SGLang's "[2026-...") is no tag, without the
	// two searches below.
	j := 1
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == len(s) || s[j] != ',' {
		return s, false
	}
	comma := indexByteWithin(s, ',', 17) // beyond 16, end could not follow it
	end := indexByteWithin(s, ']', 17)
	if comma < 2 || end < comma+2 || end > 16 || !allDigits(s[1:comma]) || !allDigits(s[comma+1:end]) {
		return s, false
	}
	rest := s[end+1:]
	for _, stream := range [...]string{"<stdout>:", "<stderr>:", "<stddiag>:"} {
		if strings.HasPrefix(rest, stream) {
			p.Rank = "rank" + s[comma+1:end]
			p.Source = p.Rank
			return skipOneSpace(rest[len(stream):]), true
		}
	}
	return s, false
}
