package classify

// llama.cpp's common_log prefix (llama-server, llama-cli with --log-prefix
// and --log-timestamps; also through LLAMA_LOG_PREFIX/LLAMA_LOG_TIMESTAMPS):
//
//	0.00.031.207 E srv          start: couldn't bind HTTP server socket, ...
//
// The time is minutes.seconds.milliseconds.microseconds since the process
// started, not a wall clock, so it sets no Time; the letter is the level
// (I, W, E, D).

// eatGGMLClock reads "M.SS.mmm.uuu L " at the start of s.
func (p *Prefix) eatGGMLClock(s string) (string, bool) {
	i := 0
	for i < len(s) && i < 7 && isDigit(s[i]) {
		i++
	}
	if i == 0 {
		return s, false
	}
	for _, w := range [...]int{2, 3, 3} {
		if i+w >= len(s) || s[i] != '.' {
			return s, false
		}
		for j := i + 1; j <= i+w; j++ {
			if !isDigit(s[j]) {
				return s, false
			}
		}
		i += w + 1
	}
	// A space, the level letter, and a space or the end of the line (an
	// empty message).
	if i+1 >= len(s) || s[i] != ' ' || (i+2 < len(s) && s[i+2] != ' ') {
		return s, false
	}
	var lv string
	switch s[i+1] {
	case 'I':
		lv = "INFO"
	case 'W':
		lv = "WARNING"
	case 'E':
		lv = "ERROR"
	case 'D':
		lv = "DEBUG"
	default:
		return s, false
	}
	p.Level = lv
	if i+2 >= len(s) {
		return "", true
	}
	return s[i+3:], true
}
