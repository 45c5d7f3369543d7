package classify

import "strings"

// Node.js error stacks, as err.stack prints them:
//
//	Error: 401 Incorrect API key provided                       <- headline (the line before the frames)
//	    at APIError.generate (/srv/node_modules/openai/error.js:45:20)
//	    at async /srv/app/routes.js:12:9
//	  [cause]: Error: connect ECONNREFUSED 127.0.0.1:11434 {
//	    errno: -111,
//	    code: 'ECONNREFUSED'
//	  }
//
// A stack is printed by the logger of a server that caught the error
// (winston's "[ERROR]: ...", console.error(err)) as well as by Node when an
// uncaught exception kills the process; Node then marks the throw site
// above the message ("    ^") and ends with its version ("Node.js
// v20.11.0", a signature of its own that makes the event fatal). A stack
// that a ready server's logger printed is one request's failure
// (loggedStack); before readiness the event is as its first line made it.

// isJSFrame reports a stack frame line: "    at fn (file.js:12:9)",
// "    at file:///app/main.ts:12:9", "    at async Promise.all (index 0)".
func isJSFrame(body string) bool {
	if !indented(body) {
		return false
	}
	t := strings.TrimLeft(body, " \t")
	if !strings.HasPrefix(t, "at ") {
		return false
	}
	t = strings.TrimSuffix(t, ")")
	colon := strings.LastIndexByte(t, ':')
	if colon < 0 || !allDigits(t[colon+1:]) {
		return strings.HasSuffix(t, "(index 0") || strings.HasSuffix(t, "(<anonymous>") || strings.HasSuffix(t, "(native")
	}
	line := strings.LastIndexByte(t[:colon], ':')
	return line > 0 && allDigits(t[line+1:colon])
}

// consumeJS reads the frames of a Node.js stack and the causes and error
// properties printed under it.
func (s *State) consumeJS(ev *event, p *Prefix, t string) consumeResult {
	body := p.Body
	switch {
	case t == "":
		return blank(ev, 1)
	case isJSFrame(body):
		ev.Blanks = 0
		return consumed
	case indented(body) && !p.Tagged,
		t == "}" || t == "]":
		// "[cause]: Error: ...", an error's own properties ("code:
		// 'ECONNREFUSED',") and the brace that ends them.
		ev.Blanks = 0
		return consumed
	}
	return ended
}
