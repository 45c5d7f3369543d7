package review

import (
	"regexp"
	"strings"

	"launchwatch/internal/classify"
	"launchwatch/internal/store"
)

// Suggestions from evidence: when a probe or the process's exit proves
// what the log did not say (a health probe passed and no readiness line
// was recognised; the process died and no fatal alarm was raised), the
// line nearest that moment that reads like it is proposed as a signature.

var (
	readyWords = regexp.MustCompile(`(?i)\b(ready|listening|listens|serving|served|started|running|accepting|available|up|complete|completed|warm|online|healthy)\b`)
	fatalWords = regexp.MustCompile(`(?i)\b(error|fatal|died|dead|dying|killed|kill|abort|aborted|exception|fail|failed|failure|panic|lost|crash|crashed|segfault|oom|terminat\w*|shutting down|going down|exiting)\b`)
)

// Candidate picks the line to propose as a signature of meaning (ready or
// fatal) among lines, the latest first: the latest that reads like it and
// (for ready) belongs to no alarm, else the latest that is not blank (nor,
// for ready, progress). ok is false when there is none.
func Candidate(lines []store.Line, meaning string) (store.Line, bool) {
	words := readyWords
	if meaning == classify.MeaningFatal {
		words = fatalWords
	}
	var fallback *store.Line
	for i := range lines {
		l := &lines[i]
		body := strings.TrimSpace(classify.ParsePrefix(l.Text, 0).Body)
		if body == "" || l.Kind == "config" || meaning == classify.MeaningReady && (l.AlarmNo != nil || l.Kind == "progress") {
			continue
		}
		if words.MatchString(body) {
			return *l, true
		}
		if fallback == nil {
			fallback = l
		}
	}
	if fallback == nil {
		return store.Line{}, false
	}
	return *fallback, true
}
