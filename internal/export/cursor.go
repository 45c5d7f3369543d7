package export

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// Cursor is the position after the last alarm of a page. Pages run in the
// order of (launch, alarm number), which a new decision does not change, so
// paging never skips or repeats an alarm; since= bounds the decision time.
type Cursor struct {
	LaunchID int64
	AlarmNo  int
}

// cursorPrefix versions the encoding, so a later format can tell old
// cursors apart.
const cursorPrefix = "a1."

// String is the opaque form a client passes back as cursor=.
func (c Cursor) String() string {
	raw := strconv.FormatInt(c.LaunchID, 10) + "." + strconv.Itoa(c.AlarmNo)
	return cursorPrefix + base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// ParseCursor reads a cursor= value; "" is the start.
func ParseCursor(s string) (Cursor, error) {
	if s == "" {
		return Cursor{}, nil
	}
	bad := fmt.Errorf("cursor %q is not valid: pass the X-Next-Cursor of the previous page", clipText(s, 80))
	body, ok := strings.CutPrefix(s, cursorPrefix)
	if !ok || len(body) > 64 {
		return Cursor{}, bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return Cursor{}, bad
	}
	l, n, ok := strings.Cut(string(raw), ".")
	if !ok {
		return Cursor{}, bad
	}
	id, err1 := strconv.ParseInt(l, 10, 64)
	no, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil || id < 0 || no < 0 || no > 1<<31-1 {
		return Cursor{}, bad
	}
	return Cursor{LaunchID: id, AlarmNo: no}, nil
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
