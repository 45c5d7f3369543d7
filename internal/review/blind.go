package review

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"

	"launchwatch/internal/classify"
)

// A rule that matches (nearly) every line would blind Launchwatch: every
// alarm suppressed, a crashing launch shown as starting. blindReason tests
// a rule's matcher on two fixed samples embedded here, with the
// classifier's own matching (the line as an alarm's headline and
// template), and refuses it when it matches more than a tenth of the
// first or a fifth of the second:
//   - ordinary.log: lines of healthy launches (sglang, vLLM, TGI,
//     llama.cpp, Triton, NCCL, JSON and logfmt loggers). A rule on a word
//     most lines carry, such as INFO, matches many of them.
//   - alarming.log: the lines alarms are made of, one or two per kind of
//     failure (CUDA, NCCL, Python exceptions, dumps, panics). A rule for
//     one kind of false alarm matches a few; "error" matches most.
//
// Besides, a regular expression that matches the empty string (.*, ^, $,
// x?) matches every line and is refused outright.
var (
	//go:embed ordinary.log
	ordinarySample string
	//go:embed alarming.log
	alarmingSample string
)

// blindSamples are the samples and the share of each above which a rule
// is refused.
var blindSamples = []struct {
	name     string
	lines    []string
	fraction float64
}{
	{"ordinary log lines", sampleLines(ordinarySample), 0.10},
	{"error lines of different kinds", sampleLines(alarmingSample), 0.20},
}

func sampleLines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }

// blindReason says why a rule with this matcher and pattern would match
// (nearly) every line, "" when it would not. The pattern was validated.
func blindReason(matcher, pattern string) string {
	if strings.TrimSpace(pattern) == "" {
		return "an empty pattern matches every line"
	}
	if matcher == classify.MatchRegex {
		if re, err := regexp.Compile(pattern); err == nil && re.MatchString("") {
			return "this regular expression matches the empty string, so it matches every line"
		}
	}
	rs, err := classify.CompileRules([]classify.Rule{{ID: 1, Matcher: matcher, Pattern: pattern}})
	if err != nil {
		return "" // Validate reports it
	}
	for _, s := range blindSamples {
		n := 0
		for _, ln := range s.lines {
			if _, ok := rs.Match(classify.Alarm{Headline: ln, Template: classify.Template(ln)}, "", nil); ok {
				n++
			}
		}
		if limit := int(s.fraction * float64(len(s.lines))); n > limit {
			return fmt.Sprintf("this pattern matches %d of the %d %s in Launchwatch's sample (at most %d may match): "+
				"it would hide alarms of every kind; make it specific to one message", n, len(s.lines), s.name, limit)
		}
	}
	return ""
}
