package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/export"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
)

const (
	defaultExportLimit = 500
	maxExportLimit     = 5000
)

// exportAlarms answers GET /api/v1/export/alarms.jsonl?since=&server=&state=&cursor=&limit=
// with one JSON object per decided alarm (export.Record), as NDJSON. The
// page's alarms are read before a byte is written, so the next page's
// cursor can go in the headers: X-Next-Cursor and a Link rel="next",
// present only while more alarms follow. A bad parameter is a 400 before
// anything is streamed.
func (h *handler) exportAlarms(c echo.Context) error {
	q := c.QueryParams()
	since, err := export.ParseSince(q.Get("since"), h.pipe.Clock().Now())
	if err != nil {
		return decode.BadRequest("%s", err.Error())
	}
	server := strings.ToLower(strings.TrimSpace(q.Get("server")))
	if server != "" && !launchid.ServerPattern.MatchString(server) {
		return decode.BadRequest("server %q is not valid: use a short name such as sglang, vllm or tgi", server)
	}
	state := q.Get("state")
	if state != "" && !slices.Contains(export.States, state) {
		return decode.BadRequest("state %q is not valid: use %s", state, strings.Join(export.States, ", "))
	}
	cur, err := export.ParseCursor(q.Get("cursor"))
	if err != nil {
		return decode.BadRequest("%s", err.Error())
	}
	limit, err := decode.IntParam(q, "limit", defaultExportLimit, 1, maxExportLimit)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	alarms, err := h.store.ExportAlarms(ctx, store.ExportFilter{Since: since, Server: server, State: state,
		AfterLaunch: cur.LaunchID, AfterNo: cur.AlarmNo, Limit: int(limit) + 1})
	if err != nil {
		return err
	}
	res := c.Response()
	if len(alarms) > int(limit) {
		alarms = alarms[:limit]
		last := alarms[len(alarms)-1]
		next := export.Cursor{LaunchID: last.LaunchID, AlarmNo: last.Alarm.No}.String()
		nq := url.Values{}
		for k, v := range q {
			nq[k] = v
		}
		nq.Set("cursor", next)
		res.Header().Set("X-Next-Cursor", next)
		res.Header().Set("Link", `<`+c.Request().URL.Path+`?`+nq.Encode()+`>; rel="next"`)
	}
	res.Header().Set(echo.HeaderContentType, "application/x-ndjson; charset=utf-8")
	res.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(res)
	enc.SetEscapeHTML(false)
	for i, a := range alarms {
		ex, err := h.store.AlarmExcerpt(ctx, a.LaunchID, a.Alarm, export.ContextLines, export.MaxOwnLines)
		if err == nil {
			err = enc.Encode(exportRecord(a, ex))
		}
		if err != nil {
			// The status is sent: cut the stream so the client sees an
			// incomplete answer instead of a short page that looks whole.
			if ctx.Err() == nil {
				h.log.Error("export alarms", "error", err.Error())
			}
			panic(http.ErrAbortHandler)
		}
		if i%50 == 49 {
			res.Flush()
		}
	}
	return nil
}

// exportRecord is the JSONL object of a decided alarm.
func exportRecord(e store.ExportedAlarm, ex store.AlarmExcerpt) export.Record {
	a := e.Alarm
	r := export.Record{Launch: e.LaunchKey, Server: e.Server, Labels: e.Labels, Alarm: a.No, Kind: a.Kind,
		Fatal: a.Fatal, State: a.State, Headline: a.Headline, HeadlineSeq: a.HeadlineSeq, Template: a.Template,
		Fingerprint: a.Fingerprint, Ranks: a.Ranks, FirstSeq: a.FirstSeq, LastSeq: a.LastSeq,
		Lines: exportLines(ex.Own), LinesTruncated: ex.Truncated, Before: exportLines(ex.Before),
		After: exportLines(ex.After), DecidedAt: e.DecidedAt.UTC()}
	if r.Labels == nil {
		r.Labels = map[string]string{}
	}
	if a.DecidedBy != nil {
		r.DecidedBy = *a.DecidedBy
	}
	if a.Reason != nil {
		r.Reason = *a.Reason
	}
	if e.Rule != nil {
		r.Rule = &export.Rule{ID: e.Rule.ID, Matcher: e.Rule.Matcher, Pattern: e.Rule.Pattern,
			Author: e.Rule.Author, Reason: e.Rule.Reason}
		if r.DecidedBy == "" {
			r.DecidedBy, r.Reason = e.Rule.Author, e.Rule.Reason
		}
	}
	return r
}

func exportLines(lines []store.Line) []export.Line {
	out := make([]export.Line, len(lines))
	for i, l := range lines {
		out[i] = export.Line{Seq: l.Seq, TS: l.TS.UTC(), Rank: l.Rank, Text: l.Text}
	}
	return out
}
