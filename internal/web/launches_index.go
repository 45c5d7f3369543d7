package web

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/status"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

const launchesPerPage = 50

// allStatuses are the launch statuses, in the order the filter offers them.
var allStatuses = []string{status.Starting, status.Loading, status.Ready, status.Alarm, status.Crashed,
	status.Exited, status.Silent}

// firstLogCurl is the command an empty installation suggests, on the URL
// the browser is on, with a token from the tokens page.
func firstLogCurl(serverURL string) string {
	return `curl --data-binary @x.log -H 'Content-Type: text/plain' -H "Authorization: Bearer $LAUNCHWATCH_TOKEN" '` +
		serverURL + `/api/v1/launches/demo/lines?server=sglang'`
}

// launchesIndex answers GET /: the launches, filtered and paged.
func (h *handler) launchesIndex(c echo.Context) error {
	f, err := parseLaunchesFilter(c.QueryParams())
	var inputErr *decode.InputError
	if errors.As(err, &inputErr) {
		// The form stays, with what was typed and why it was refused.
		return render(c, inputErr.Status, views.Launches(views.LaunchesProps{Filter: f, Statuses: allStatuses,
			Error: inputErr.Message}))
	} else if err != nil {
		return err
	}
	ctx := c.Request().Context()
	now := h.pipe.Clock().Now()
	sf := launchFilter(f, h.cfg.SilentAfter, now)
	sf.Sort, sf.Asc = f.Sort, f.Asc
	sf.Limit, sf.Offset = launchesPerPage, (f.Page-1)*launchesPerPage
	items, total, err := h.store.ListLaunches(ctx, sf)
	if err != nil {
		return err
	}
	p := views.LaunchesProps{Filter: f, Total: total, Statuses: allStatuses, CurlLine: firstLogCurl(h.serverURL(c)), Now: now}
	if total == 0 && !f.Active() {
		p.Empty = true
		return render(c, 200, views.Launches(p))
	}
	if p.Servers, err = h.store.LaunchServers(ctx); err != nil {
		return err
	}
	for i := range items {
		l := &items[i]
		p.Rows = append(p.Rows, views.LaunchRow{Key: l.Key, Name: l.Name,
			Status: status.Observed(l.Status, l.LastHeard(), now, h.cfg.SilentAfter), Server: l.Server,
			Host: l.Host, Received: l.CreatedAt, TimeToReady: l.TimeToReady(), OpenAlarms: l.OpenAlarms, Phase: l.Phase,
			PhaseDone: l.PhaseDone, PhaseTotal: l.PhaseTotal, LastHeard: l.LastHeard(), Why: launchWhy(l)})
	}
	if f.Page > 1 {
		p.PrevURL = launchesURL(f, f.Page-1)
	}
	if f.Page*launchesPerPage < total {
		p.NextURL = launchesURL(f, f.Page+1)
	}
	return render(c, 200, views.Launches(p))
}

func parseLaunchesFilter(q url.Values) (views.LaunchesFilter, error) {
	if err := checkText(q); err != nil {
		return views.LaunchesFilter{}, err
	}
	f := views.LaunchesFilter{
		Status: q.Get("status"), Server: strings.TrimSpace(q.Get("server")),
		Label: strings.TrimSpace(q.Get("label")), Query: strings.TrimSpace(q.Get("q")),
	}
	if f.Status != "" && !slices.Contains(allStatuses, f.Status) {
		return f, decode.BadRequest("status %q is not one of %s", f.Status, strings.Join(allStatuses, ", "))
	}
	if f.Server != "" && !launchid.ServerPattern.MatchString(f.Server) {
		return f, decode.BadRequest("server %q is not valid", f.Server)
	}
	if name, value, _ := strings.Cut(f.Label, "="); f.Label != "" && (!launchid.LabelKeyPattern.MatchString(name) ||
		len(value) > 200 || !utf8.ValidString(value) || strings.ContainsAny(value, "\x00\n\r")) {
		return f, decode.BadRequest("label filter %q is not valid: use name or name=value, a name of letters, digits, _ . - (starting with a letter or _) and a value of at most 200 bytes on one line", f.Label)
	}
	if len(f.Query) > 200 || !utf8.ValidString(f.Query) {
		return f, decode.BadRequest("search must be at most 200 bytes of text")
	}
	if s := q.Get("sort"); s != "" {
		if _, ok := store.LaunchSorts[s]; !ok {
			return f, decode.BadRequest("sort %q is not one of key, status, server, host, received, ready, alarms", s)
		}
		f.Sort = s
	}
	switch q.Get("dir") {
	case "", "desc":
	case "asc":
		f.Asc = true
	default:
		return f, decode.BadRequest("dir must be asc or desc, not %q", q.Get("dir"))
	}
	page, err := decode.IntParam(q, "page", 1, 1, 100000)
	f.Page = int(page)
	return f, err
}

// launchesURL is the list URL of page n with the same filters and sort.
func launchesURL(f views.LaunchesFilter, n int) string { return f.URL(n) }
