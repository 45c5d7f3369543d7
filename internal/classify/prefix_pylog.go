package classify

import "strings"

// eatNamePidLevel reads what follows the time in Python logging's
// "%(asctime)s %(name)-12s %(process)d %(levelname)-8s %(message)s", the
// format Xinference configures for all its processes:
// "xinference.core.worker 4242 ERROR    Failed to load model m-0". It
// returns the message and the level; ok is false for anything else.
func eatNamePidLevel(s string) (body, level string, ok bool) {
	name, rest, found := strings.Cut(s, " ")
	if !found || name == "" || len(name) > 80 || !isLoggerName(name) {
		return "", "", false
	}
	rest = strings.TrimLeft(rest, " ")
	pid, rest, found := strings.Cut(rest, " ")
	if !found || !allDigits(pid) {
		return "", "", false
	}
	word, rest, _ := strings.Cut(rest, " ")
	lv := normLevel(word)
	if lv == "" {
		return "", "", false
	}
	return strings.TrimLeft(rest, " "), lv, true
}

// isLoggerName reports whether s looks like a Python logger name
// ("uvicorn.error", "xinference.core.worker", "root").
func isLoggerName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '.' || c == '_' || c == '-' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// skipSourceField drops the "file.py:123 - " that LMDeploy's format
// ("%(asctime)s - %(name)s - %(levelname)s - %(filename)s:%(lineno)d -
// %(message)s") writes between the level and the message.
func skipSourceField(s string) string {
	field, rest, found := strings.Cut(s, " - ")
	if !found || strings.IndexByte(field, ' ') >= 0 {
		return s
	}
	colon := strings.LastIndexByte(field, ':')
	if colon < 4 || !strings.HasSuffix(field[:colon], ".py") || !allDigits(field[colon+1:]) {
		return s
	}
	return rest
}
