// Package timefmt formats durations the way an engineer reads a launch
// (33.8s, 4m12s, 2h05m), for the pages and for what is written outside
// them (post-mortems), from one copy.
package timefmt

import (
	"fmt"
	"strconv"
	"time"
)

// Duration formats d: tenths of a second under a minute, then minutes and
// seconds, then hours and minutes; "—" for a negative one.
func Duration(d time.Duration) string {
	switch {
	case d < 0:
		return "—"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}
