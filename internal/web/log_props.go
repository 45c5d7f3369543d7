package web

import (
	"net/url"
	"strconv"

	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// logLevels are the levels the log view's filter offers.
var logLevels = []string{"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}

// logProps is the log view of window w of launch l read with lq: the
// lines, where they sit in the launch ("lines X–Y of N"), and the paging
// links, which keep every filter.
func logProps(l *store.Launch, w store.LineWindow, lq logQuery) views.LogProps {
	f := lq.filter
	p := views.LogProps{LaunchKey: l.Key, ErrorsOnly: f.ErrorsOnly, HideConfig: f.HideConfig, After: f.After,
		ShowSuppressed: lq.showSuppressed, Query: lq.query, Regexp: lq.regexp, Level: f.Level, Stream: f.Stream,
		Rank: f.Rank, Kind: f.Kind, Levels: logLevels, Kinds: logKinds, Error: lq.invalid, Total: l.LineCount}
	if lq.invalid != "" {
		return p
	}
	lines := w.Lines
	for _, ln := range lines {
		v := logLine(l.Key, ln)
		// The log view is on the launch's page (and the tail appends to
		// it): the permalink is relative to it, shorter by the path.
		v.Href = windowHref(ln.Seq)
		p.Lines = append(p.Lines, v)
	}
	if len(lines) > 0 {
		p.From, p.To = lines[0].Seq, lines[len(lines)-1].Seq
	}
	if f.Before > 0 {
		if w.More {
			p.PrevURL = lq.url(l.Key, "before", w.Cursor) + "#log"
		}
		if f.Before <= l.LastSeq {
			p.NextURL = lq.url(l.Key, "after", max(p.To, f.Before-1)) + "#log"
		}
	} else {
		if w.More {
			p.NextURL = lq.url(l.Key, "after", w.Cursor) + "#log"
		}
		if f.After > 0 && (!f.InRange || f.After >= f.MinSeq) {
			first := f.After + 1
			if len(lines) > 0 {
				first = p.From
			}
			p.PrevURL = lq.url(l.Key, "before", first) + "#log"
		}
	}
	if p.PrevURL != "" {
		p.FirstURL = lq.url(l.Key, "after", 0) + "#log"
	}
	p.EndURL = "#log-end"
	if p.NextURL != "" {
		p.LastURL = lq.url(l.Key, "before", l.LastSeq+1) + "#log-end"
		p.EndURL = p.LastURL
	}
	if f.Narrowing() && f.ScanLimit > 0 {
		p.ScannedFrom, p.ScannedTo = w.ScannedFrom, w.ScannedTo
	}
	// Only the last window of the unfiltered log follows the launch: new
	// lines belong at its end.
	p.Live = p.NextURL == "" && !lq.narrowed()
	if !p.Live {
		p.FollowURL = "/launches/" + url.PathEscape(l.Key) + "?before=" + strconv.FormatInt(l.LastSeq+1, 10) + "#log-end"
	}
	p.LastSeq = max(p.To, f.After, min(f.Before-1, l.LastSeq))
	return p
}
