package decode

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // --tz names a zone whatever the server's system has
)

// ParseTZ reads a --tz value: an IANA zone name (Europe/Berlin), UTC, or a
// fixed offset ±hh:mm (+02:00, -0530).
func ParseTZ(s string) (*time.Location, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty time zone")
	}
	if s[0] == '+' || s[0] == '-' {
		digits := strings.ReplaceAll(s[1:], ":", "")
		if len(digits) != 4 && len(digits) != 2 {
			return nil, fmt.Errorf("time zone %q: want ±hh:mm", s)
		}
		h, err1 := strconv.Atoi(digits[:2])
		m := 0
		var err2 error
		if len(digits) == 4 {
			m, err2 = strconv.Atoi(digits[2:])
		}
		if err1 != nil || err2 != nil || h > 14 || m > 59 {
			return nil, fmt.Errorf("time zone %q: want ±hh:mm", s)
		}
		off := h*3600 + m*60
		if s[0] == '-' {
			off = -off
		}
		return time.FixedZone(s, off), nil
	}
	loc, err := time.LoadLocation(s)
	if err != nil || s == "Local" {
		return nil, fmt.Errorf("time zone %q: not an IANA zone name (Europe/Berlin) or ±hh:mm", s)
	}
	return loc, nil
}
