package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/review"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// maxProblems bounds the problems the index lists.
const maxProblems = 200

// fingerprintPattern is what classify.Fingerprint makes: hex.
var fingerprintPattern = regexp.MustCompile(`^[0-9a-f]{1,64}$`)

func problemHref(fp string) string { return "/problems/" + url.PathEscape(fp) }

// problemFingerprint reads the route's {fp}.
func problemFingerprint(c echo.Context) (string, error) {
	fp := c.Param("fp")
	if !fingerprintPattern.MatchString(fp) {
		return "", decode.BadRequest("%q is not a problem's fingerprint", clipParam(fp))
	}
	return fp, nil
}

func clipParam(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// problemsIndex answers GET /problems?open=1&server=S: alarms grouped by
// fingerprint across launches, the most recently seen first.
func (h *handler) problemsIndex(c echo.Context) error {
	q := c.QueryParams()
	f := store.ProblemFilter{OpenOnly: q.Get("open") == "1", Server: strings.ToLower(strings.TrimSpace(q.Get("server"))),
		Limit: maxProblems}
	if f.Server != "" && !launchid.ServerPattern.MatchString(f.Server) {
		return decode.BadRequest("server %q is not valid: use a short name such as sglang, vllm or tgi", clipParam(f.Server))
	}
	ps, err := h.store.Problems(c.Request().Context(), h.pipe.Clock().Now(), f)
	if err != nil {
		return err
	}
	p := views.ProblemsProps{OpenOnly: f.OpenOnly, Server: f.Server}
	for _, pr := range ps {
		p.Problems = append(p.Problems, problemRow(pr))
	}
	return render(c, http.StatusOK, views.Problems(p))
}

func problemRow(p store.Problem) views.ProblemRow {
	return views.ProblemRow{Fingerprint: p.Fingerprint, Href: problemHref(p.Fingerprint), Kind: p.Kind,
		Template: p.Template, Headline: p.Headline, Fatal: p.Fatal, Alarms: p.Alarms, Launches: p.Launches,
		Open: p.Open, Confirmed: p.Confirmed, Dismissed: p.Dismissed, Suppressed: p.Suppressed,
		FirstSeen: p.FirstSeen, LastSeen: p.LastSeen, Trend: p.Trend}
}

func problemAlarms(as []store.ProblemAlarm) []views.ProblemAlarm {
	out := make([]views.ProblemAlarm, len(as))
	for i, a := range as {
		v := views.ProblemAlarm{LaunchKey: a.LaunchKey, Href: "/launches/" + a.LaunchKey + "#alarm-" + strconv.Itoa(a.No),
			LaunchStatus: a.LaunchStatus, Server: a.Server, No: a.No, State: a.State, Fatal: a.Fatal,
			Headline: a.Headline, SeenAt: a.SeenAt}
		if a.DecidedBy != nil {
			v.Decision = "by " + *a.DecidedBy
			if a.Reason != nil {
				v.Decision += ": " + *a.Reason
			}
		}
		out[i] = v
	}
	return out
}

// problemPage reads a problem's page: its facts, headlines and alarms.
func (h *handler) problemPage(c echo.Context, fp string) (views.ProblemProps, error) {
	v, err := review.LoadProblem(c.Request().Context(), h.store, fp, h.pipe.Clock().Now())
	if err != nil {
		return views.ProblemProps{}, err
	}
	p := views.ProblemProps{Problem: problemRow(v.Problem), Actor: actorName(c), Truncated: v.Truncated,
		Alarms: problemAlarms(v.Alarms)}
	for _, hc := range v.Headlines {
		p.Headlines = append(p.Headlines, views.ProblemHeadline{Headline: hc.Headline, Alarms: hc.Alarms})
	}
	return p, nil
}

// addPreview lists the open alarms a decision would decide.
func (h *handler) addPreview(c echo.Context, p *views.ProblemProps, fp string) error {
	pv, err := review.LoadProblemPreview(c.Request().Context(), h.store, fp)
	if err != nil {
		return err
	}
	p.Preview = &views.ProblemPreview{Open: problemAlarms(pv.Open), Refs: pv.Refs, Truncated: pv.Truncated}
	return nil
}
