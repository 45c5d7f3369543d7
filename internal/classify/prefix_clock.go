package classify

import "strings"

// eatClock reads a prefix that starts with a time of day and no date, then a
// padded level word, as text-generation-webui's logger writes it
// (modules/logging_colors.py: "%H:%M:%S" plus "-<microseconds>", then the
// level name left-justified to 8 columns):
//
//	11:02:19-880000 ERROR    Failed to load the model.
//	10:20:30-100900 WARNING  trust_remote_code is enabled. This is dangerous.
//
// Without a level word right after it a clock is no prefix ("12:00:01 took
// 3s" may be a message), so none is taken. The time stays zero: a time of
// day without a date is not a complete timestamp. The level's padding is
// part of the prefix, so the body does not look indented.
func (p *Prefix) eatClock(s string) (string, bool) {
	if len(s) < 10 || s[2] != ':' || s[5] != ':' {
		return s, false
	}
	for _, i := range []int{0, 1, 3, 4, 6, 7} {
		if !isDigit(s[i]) {
			return s, false
		}
	}
	n := 8
	if n < len(s) && (s[n] == '-' || s[n] == '.' || s[n] == ',') {
		j := n + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == n+1 {
			return s, false
		}
		n = j
	}
	if n >= len(s) || s[n] != ' ' {
		return s, false
	}
	rest := s[n+1:]
	if body, lv, ok := eatElixirLevel(rest); ok {
		p.Level = lv
		return body, true
	}
	sp := strings.IndexByte(rest, ' ')
	if sp < 3 || sp > 8 {
		return s, false
	}
	lv := normLevel(rest[:sp])
	if lv == "" {
		return s, false
	}
	// Skip the padding to the 8-column level field and its separator.
	end := sp
	for end < len(rest) && end < 9 && rest[end] == ' ' {
		end++
	}
	p.Level = lv
	return rest[end:], true
}

// eatKitchen reads the prefix of Go's zerolog console writer with its
// default time format (time.Kitchen) and its three-letter levels, as LocalAI
// and other Go servers write it:
//
//	3:04PM INF Starting server address=:8080
//	10:21AM WRN Client error status=404
//
// The time stays zero, as eatClock's: a time of day is no timestamp.
func (p *Prefix) eatKitchen(s string) (string, bool) {
	h := 1
	if len(s) > 1 && isDigit(s[1]) {
		h = 2
	}
	// "3:04PM INF " is 11 bytes after a one-digit hour.
	if len(s) < h+10 || s[h] != ':' || !isDigit(s[h+1]) || !isDigit(s[h+2]) ||
		(s[h+3] != 'A' && s[h+3] != 'P') || s[h+4] != 'M' || s[h+5] != ' ' || s[h+9] != ' ' {
		return s, false
	}
	lv := zerologLevel(s[h+6 : h+9])
	if lv == "" {
		return s, false
	}
	p.Level = lv
	return s[h+10:], true
}

// eatMonthLevel reads a month-day time without a year, then a bracketed
// level, as hivemind's logger writes it (Petals: "%b %d %H:%M:%S.%f
// [LEVEL] ..."): "Mar 04 10:01:57.004 [INFO] Started". The year comes from
// year; with 0 the time stays zero. A syslog line ("Mar 04 10:01:57 host
// app[1]: ...") has no level there and is peeled as an envelope instead.
func (p *Prefix) eatMonthLevel(s string, year int) (string, bool) {
	if len(s) < 22 || s[3] != ' ' || s[6] != ' ' || s[9] != ':' || s[12] != ':' {
		return s, false
	}
	mo := 0
	for i, m := range months {
		if s[:3] == m {
			mo = i + 1
			break
		}
	}
	if mo == 0 {
		return s, false
	}
	for _, i := range []int{5, 7, 8, 10, 11, 13, 14} {
		if !isDigit(s[i]) {
			return s, false
		}
	}
	if s[4] != ' ' && !isDigit(s[4]) {
		return s, false
	}
	n, ns := 15, 0
	if s[n] == '.' || s[n] == ',' {
		j, scale := n+1, 100000000
		for ; j < len(s) && isDigit(s[j]); j++ {
			if scale > 0 {
				ns += int(s[j]-'0') * scale
				scale /= 10
			}
		}
		if j == n+1 {
			return s, false
		}
		n = j
	}
	if n+1 >= len(s) || s[n] != ' ' || s[n+1] != '[' {
		return s, false
	}
	rest, ok := p.eatBracketLevel(s[n+1:])
	if !ok {
		return s, false
	}
	d := int(s[5] - '0')
	if s[4] != ' ' {
		d = atoi2(s[4:6])
	}
	if year > 0 {
		p.Time = dateUTC(year, mo, d, atoi2(s[7:9]), atoi2(s[10:12]), atoi2(s[13:15]), ns)
	}
	return rest, true
}

// zerologLevel maps zerolog's console level abbreviations to level names.
func zerologLevel(w string) string {
	switch w {
	case "TRC", "DBG":
		return "DEBUG"
	case "INF":
		return "INFO"
	case "WRN":
		return "WARNING"
	case "ERR":
		return "ERROR"
	case "FTL", "PNC":
		return "FATAL"
	}
	return ""
}

// eatElixirLevel reads the level of Elixir's Logger after its time of day,
// "09:40:01.118 [warning] msg": one of its eight levels, in lower case and
// brackets (notice is information; alert and emergency, critical).
func eatElixirLevel(rest string) (body, level string, ok bool) {
	if len(rest) < 7 || rest[0] != '[' {
		return "", "", false
	}
	end := strings.IndexByte(rest[:min(len(rest), 12)], ']')
	if end < 0 || end+1 >= len(rest) || rest[end+1] != ' ' {
		return "", "", false
	}
	switch rest[1:end] {
	case "debug":
		level = "DEBUG"
	case "info", "notice":
		level = "INFO"
	case "warning", "warn":
		level = "WARNING"
	case "error":
		level = "ERROR"
	case "critical", "alert", "emergency":
		level = "CRITICAL"
	default:
		return "", "", false
	}
	return rest[end+2:], level, true
}
