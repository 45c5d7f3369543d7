package web

import (
	"net/url"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/compare"
	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// compareShown is how many entries of each line list a comparison shows
// unless asked for all (?lines=all).
const compareShown = 50

// compareShow answers GET /compare?a=KEY1&b=KEY2: two launches side by side
// with their outcome, what is new in B (the failure first, built from the
// launches' template summaries), the configuration keys that differ (all
// of them with ?config=all) and phase durations.
func (h *handler) compareShow(c echo.Context) error {
	var keys [2]string
	for i, name := range []string{"a", "b"} {
		keys[i] = c.QueryParam(name)
		if !launchid.KeyPattern.MatchString(keys[i]) {
			return decode.BadRequest("%s must be a launch key, got %q", name, keys[i])
		}
	}
	v, err := compare.Load(c.Request().Context(), h.store, keys[0], keys[1])
	if err != nil {
		return err
	}
	a, b := v.A.Launch, v.B.Launch
	allConfig, allLines := c.QueryParam("config") == "all", c.QueryParam("lines") == "all"
	cmp := v.Comparison
	p := views.CompareProps{AllConfig: allConfig, Partial: cmp.Partial,
		ConfigToggleURL: compareURL(a.Key, b.Key, !allConfig, allLines), AllLinesURL: compareURL(a.Key, b.Key, allConfig, true)}
	p.Config, p.ConfigSame = configDiff(a.Config, b.Config, allConfig)
	p.NewInB, p.NewInBHidden = compareEntries(b.Key, cmp.NewInB, allLines)
	p.OnlyA, p.OnlyAHidden = compareEntries(a.Key, cmp.OnlyInA, allLines)
	p.A, p.B = compareSide(v.A), compareSide(v.B)
	p.Phases = phaseDiff(v.A.Phases, v.B.Phases)
	return render(c, 200, views.Compare(p))
}

func compareURL(a, b string, allConfig, allLines bool) string {
	q := url.Values{"a": {a}, "b": {b}}
	if allConfig {
		q.Set("config", "all")
	}
	if allLines {
		q.Set("lines", "all")
	}
	return "/compare?" + q.Encode()
}

// compareEntries turns ranked entries of the launch key into rows linking
// to their first line, at most compareShown unless all; it returns how
// many it left out.
func compareEntries(key string, es []compare.Entry, all bool) ([]views.CompareEntry, int) {
	hidden := 0
	if !all && len(es) > compareShown {
		// The noise entry is last; it stays, standing for what it collapses.
		hidden = len(es) - compareShown
		if n := len(es); es[n-1].Tier == compare.Noise {
			es = append(slices.Clone(es[:compareShown-1]), es[n-1])
		} else {
			es = es[:compareShown]
		}
	}
	out := make([]views.CompareEntry, len(es))
	for i, e := range es {
		out[i] = compareEntry(key, e)
		for _, m := range e.Members {
			out[i].Members = append(out[i].Members, compareEntry(key, m))
		}
	}
	return out, hidden
}

func compareEntry(key string, e compare.Entry) views.CompareEntry {
	v := views.CompareEntry{Tier: e.Tier.String(), Template: e.Template, Sample: e.Sample, Count: e.Count,
		Href: lineHref(key, e.FirstSeq), Seq: e.FirstSeq, Alarm: e.Alarm, Known: e.Known}
	if e.Tier == compare.Noise {
		v.Noise = e.Templates
	}
	return v
}

func compareSide(side compare.Side) views.CompareSide {
	l := side.Launch
	s := views.CompareSide{Key: l.Key, Status: l.Status, Server: l.Server, Host: l.Host, Alarms: l.Alarms,
		TimeToReady: "—", Exit: "—"}
	if side.Ready != nil && !side.First.IsZero() {
		s.TimeToReady = views.Duration(side.Ready.Sub(side.First))
	}
	switch {
	case l.ExitSignal != nil && *l.ExitSignal != "":
		s.Exit = "signal " + *l.ExitSignal
	case l.ExitCode != nil:
		s.Exit = "code " + strconv.Itoa(*l.ExitCode)
	}
	return s
}

// configDiff lists the keys that differ and, with all, then the keys that
// are the same; it returns how many are the same.
func configDiff(a, b map[string]string, all bool) ([]views.ConfigDiff, int) {
	changed, same := compare.Config(a, b)
	var out []views.ConfigDiff
	for _, d := range changed {
		out = append(out, views.ConfigDiff{Key: d.Key, A: d.A, B: d.B, InA: d.InA, InB: d.InB, Changed: true})
	}
	if all {
		for _, d := range same {
			out = append(out, views.ConfigDiff{Key: d.Key, A: d.A, B: d.B, InA: true, InB: true})
		}
	}
	return out, len(same)
}

func phaseDiff(a, b []store.Phase) []views.PhaseDiff {
	dur := func(ps []store.Phase, name string) string {
		for _, p := range ps {
			if p.Name == name {
				if p.End == nil {
					return "no end"
				}
				return views.Duration(p.End.Sub(p.Begin))
			}
		}
		return "—"
	}
	var names []string
	for _, p := range append(slices.Clone(a), b...) {
		if !slices.Contains(names, p.Name) {
			names = append(names, p.Name)
		}
	}
	out := make([]views.PhaseDiff, 0, len(names))
	for _, n := range names {
		out = append(out, views.PhaseDiff{Name: n, A: dur(a, n), B: dur(b, n)})
	}
	return out
}
