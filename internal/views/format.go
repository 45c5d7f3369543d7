package views

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"launchwatch/internal/timefmt"
)

// Duration formats d the way an engineer reads a launch: 33.8s, 4m12s, 2h05m.
func Duration(d time.Duration) string { return timefmt.Duration(d) }

// Time formats t in UTC, to the second; an unknown time is a dash.
func Time(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

func itoa(n int) string { return strconv.Itoa(n) }

func i64(n int64) string { return strconv.FormatInt(n, 10) }

func i64toa(n int64) string { return strconv.FormatInt(n, 10) }

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
