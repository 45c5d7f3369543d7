package export

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseSince reads a since= value: an RFC 3339 time, a date (YYYY-MM-DD,
// midnight UTC) or an age before now (90m, 36h, 7d). "" is no bound (the
// zero time).
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 && n <= 36500 {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("since %q is not a time: use RFC 3339 (2026-11-30T08:00:00Z), a date (2026-11-30) or an age (36h, 7d)", s)
}
