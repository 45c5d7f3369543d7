package web

import (
	"errors"
	"math"
	"net/url"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"launchwatch/internal/decode"
	"launchwatch/internal/store"
	"launchwatch/internal/timeline"
)

// logWindow is how many lines the log view shows at once.
const logWindow = 500

// logScanLimit bounds how many lines one log window reads when it filters
// on something no index serves (level, stream, rank, kind, search): a
// window of a million-line launch costs one range scan of at most this
// many rows of the primary key; the page says how far it looked and links
// to where the next read continues.
const logScanLimit = 200_000

var (
	logLevelPattern = regexp.MustCompile(`^[A-Za-z]{1,16}$`)
	logTokenPattern = regexp.MustCompile(`^[A-Za-z0-9_.:/@-]{1,64}$`)
	logKinds        = []string{"plain", "progress", "ready", "config", "warning", "error"}
)

// logQuery is the log view's part of a launch page URL, as the user gave it.
type logQuery struct {
	filter         store.LineFilter
	showSuppressed bool
	query          string // the search text
	regexp         bool   // query is an RE2 expression
	// invalid is why the query was refused (400): the page shows the form
	// with this message instead of lines.
	invalid string
	// zoom is the timeline's time range: the log shows only its lines.
	// zoomInvalid says the refusal (invalid) was of the zoom: the timeline
	// shows it where the range is chosen.
	zoom        zoomQuery
	zoomInvalid bool
}

// parseLogQuery reads ?after=, ?before=, ?errors=1, ?hideconfig=1,
// ?suppressed=1, ?level=, ?stream=, ?rank=, ?kind=, ?q=, ?re=1 and the
// timeline's ?from= and ?to= (parseZoom). A
// malformed parameter, a bad regular expression included, is an input
// error (400), returned with the query read so far so the page can still
// show the form.
func parseLogQuery(q url.Values) (logQuery, error) {
	lq := logQuery{showSuppressed: q.Get("suppressed") == "1", query: q.Get("q"), regexp: q.Get("re") == "1"}
	f := store.LineFilter{Limit: logWindow, ErrorsOnly: q.Get("errors") == "1", HideConfig: q.Get("hideconfig") == "1",
		Level: strings.ToUpper(strings.TrimSpace(q.Get("level"))), Stream: strings.TrimSpace(q.Get("stream")),
		Rank: strings.TrimSpace(q.Get("rank")), Kind: strings.TrimSpace(q.Get("kind")), ScanLimit: logScanLimit}
	f.HideSuppressed = f.ErrorsOnly && !lq.showSuppressed
	lq.filter = f
	var err error
	if lq.zoom, err = parseZoom(q); err != nil {
		lq.zoomInvalid = true
		return lq, err
	}
	if f.After, err = decode.IntParam(q, "after", 0, 0, math.MaxInt64); err != nil {
		return lq, err
	}
	if f.Before, err = decode.IntParam(q, "before", 0, 0, math.MaxInt64); err != nil {
		return lq, err
	}
	lq.filter = f
	switch {
	case f.Level != "" && !logLevelPattern.MatchString(f.Level):
		return lq, decode.BadRequest("level %q is not valid: use a level name such as INFO, WARNING or ERROR", f.Level)
	case f.Stream != "" && !logTokenPattern.MatchString(f.Stream):
		return lq, decode.BadRequest("stream %q is not valid", f.Stream)
	case f.Rank != "" && !logTokenPattern.MatchString(f.Rank):
		return lq, decode.BadRequest("rank %q is not valid", f.Rank)
	case f.Kind != "" && !slices.Contains(logKinds, f.Kind):
		return lq, decode.BadRequest("kind %q is not one of %s", f.Kind, strings.Join(logKinds, ", "))
	case len(lq.query) > 500 || !utf8.ValidString(lq.query) || strings.ContainsAny(lq.query, "\x00\n"):
		return lq, decode.BadRequest("search must be at most 500 bytes of text on one line")
	}
	switch {
	case lq.query == "":
	case lq.regexp:
		re, err := regexp.Compile(lq.query)
		if err != nil {
			return lq, decode.BadRequest("search %q is not a valid RE2 regular expression: %s", lq.query, reError(err))
		}
		lq.filter.Match = re
	default:
		lq.filter.Contains = lq.query
	}
	return lq, nil
}

// reError is the reason a regexp did not compile, without the package's
// "error parsing regexp: " prefix.
func reError(err error) string {
	var e *syntax.Error
	if errors.As(err, &e) {
		return e.Code.String() + ": `" + e.Expr + "`"
	}
	return err.Error()
}

// logURL is the launch page URL of another log window with the same
// filters: cursor is "after" or "before", at its seq.
func (lq logQuery) url(key, cursor string, at int64) string {
	v := url.Values{}
	f := lq.filter
	for k, on := range map[string]bool{"errors": f.ErrorsOnly, "hideconfig": f.HideConfig,
		"suppressed": lq.showSuppressed, "re": lq.regexp && lq.query != ""} {
		if on {
			v.Set(k, "1")
		}
	}
	for k, s := range map[string]string{"level": f.Level, "stream": f.Stream, "rank": f.Rank, "kind": f.Kind, "q": lq.query,
		"from": lq.zoom.from.raw, "to": lq.zoom.to.raw} {
		if s != "" {
			v.Set(k, s)
		}
	}
	v.Set(cursor, strconv.FormatInt(at, 10))
	return "/launches/" + url.PathEscape(key) + "?" + v.Encode()
}

// narrowed reports whether the window shows only some lines, so it does
// not follow the launch live.
func (lq logQuery) narrowed() bool {
	f := lq.filter
	return f.ErrorsOnly || f.HideConfig || f.Narrowing() || lq.zoom.set()
}

// read is the query timeline reads the log window with: zoomed to the
// page's range, nothing read when the query was refused.
func (lq logQuery) read() timeline.LogQuery {
	q := timeline.LogQuery{Filter: lq.filter, Refused: lq.invalid != ""}
	if lq.zoom.set() {
		q.Zoom = lq.zoom.resolve
	}
	return q
}
