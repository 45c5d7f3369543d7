package web

import (
	"maps"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/classify"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// compareLines is how many lines of each launch the template comparison
// reads: enough for any startup, bounded for million-line launches.
const compareLines = 20000

// compareShow answers GET /compare?a=KEY1&b=KEY2: two launches side by side
// with their outcome, configuration (changed keys highlighted), phase
// durations and the line templates found in one and not the other.
func (h *handler) compareShow(c echo.Context) error {
	var sides [2]*store.Launch
	ctx := c.Request().Context()
	for i, name := range []string{"a", "b"} {
		key := c.QueryParam(name)
		if !launchKeyPattern.MatchString(key) {
			return badParam("%s must be a launch key, got %q", name, key)
		}
		l, err := h.store.LaunchByKey(ctx, key)
		if err != nil {
			return err
		}
		sides[i] = l
	}
	p := views.CompareProps{Config: configDiff(sides[0].Config, sides[1].Config)}
	var phases [2][]store.Phase
	var templates [2]map[string]int
	for i, l := range sides {
		side, err := h.compareSide(c, l)
		if err != nil {
			return err
		}
		if i == 0 {
			p.A = side
		} else {
			p.B = side
		}
		if phases[i], err = h.store.Phases(ctx, l.ID); err != nil {
			return err
		}
		lines, err := h.store.FilteredLines(ctx, l.ID, store.LineFilter{Limit: compareLines + 1})
		if err != nil {
			return err
		}
		if len(lines) > compareLines {
			lines, p.Truncated = lines[:compareLines], true
		}
		templates[i] = lineTemplates(lines)
	}
	p.Phases = phaseDiff(phases[0], phases[1])
	p.OnlyA, p.OnlyB = onlyIn(templates[0], templates[1]), onlyIn(templates[1], templates[0])
	return render(c, 200, views.Compare(p))
}

func (h *handler) compareSide(c echo.Context, l *store.Launch) (views.CompareSide, error) {
	s := views.CompareSide{Key: l.Key, Status: l.Status, Server: l.Server, Host: l.Host, Alarms: l.Alarms,
		TimeToReady: "—", Exit: "—"}
	first, _, err := h.store.LineSpan(c.Request().Context(), l.ID)
	if err != nil {
		return s, err
	}
	ready, err := h.readyTime(c, l)
	if err != nil {
		return s, err
	}
	if ready != nil && !first.IsZero() {
		s.TimeToReady = views.Duration(ready.Sub(first))
	}
	switch {
	case l.ExitSignal != nil && *l.ExitSignal != "":
		s.Exit = "signal " + *l.ExitSignal
	case l.ExitCode != nil:
		s.Exit = "code " + strconv.Itoa(*l.ExitCode)
	}
	return s, nil
}

func configDiff(a, b map[string]string) []views.ConfigDiff {
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := make([]views.ConfigDiff, 0, len(keys))
	for _, k := range keys {
		va, inA := a[k]
		vb, inB := b[k]
		out = append(out, views.ConfigDiff{Key: k, A: va, B: vb, InA: inA, InB: inB, Changed: inA != inB || va != vb})
	}
	// Changed keys first: they are what the engineer is looking for.
	slices.SortStableFunc(out, func(x, y views.ConfigDiff) int {
		switch {
		case x.Changed && !y.Changed:
			return -1
		case !x.Changed && y.Changed:
			return 1
		}
		return 0
	})
	return out
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

// lineTemplates counts the lines of each template; configuration dumps
// are compared key by key instead.
func lineTemplates(lines []store.Line) map[string]int {
	m := map[string]int{}
	for _, ln := range lines {
		if ln.Kind == "config" {
			continue
		}
		m[classify.Template(ln.Text)]++
	}
	return m
}

// onlyIn returns the templates of x that y lacks, most frequent first, at
// most 100.
func onlyIn(x, y map[string]int) []views.TemplateCount {
	var out []views.TemplateCount
	for t, n := range x {
		if _, ok := y[t]; !ok {
			out = append(out, views.TemplateCount{Template: t, Count: n})
		}
	}
	slices.SortFunc(out, func(a, b views.TemplateCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		if a.Template < b.Template {
			return -1
		}
		return 1
	})
	return out[:min(len(out), 100)]
}
