// Package compare builds the comparison of two launches that /compare
// shows: what is new in the second launch, ranked so that the failure
// comes first, and how their configurations differ. It reads each launch's
// stored template summary (store.LineTemplates), never its lines, so a
// comparison costs the same for a million-line launch as for a short one.
package compare

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"launchwatch/internal/classify"
	"launchwatch/internal/store"
	"launchwatch/internal/templates"
)

// Source is what a comparison reads; *store.Store is one.
type Source interface {
	LineTemplates(ctx context.Context, launchID int64) (store.TemplateSummary, error)
	AlarmHeadlines(ctx context.Context, launchID int64) ([]store.AlarmHeadline, error)
}

// Tier ranks an entry: lower tiers are listed first.
type Tier int

// Tiers, in the order a comparison lists them.
const (
	// RootCause is the headline of a fatal alarm that is no consequence
	// of another: the error that brought the launch down.
	RootCause Tier = iota
	// Critical: the headline of another fatal alarm, or a CRITICAL or
	// FATAL line.
	Critical
	// Error: the headline of a non-fatal alarm, a line of an alarm, an
	// error line or an ERROR level.
	Error
	Warning
	Other
	// Noise is the one entry that stands for every noise template
	// (progress bars, carets, separators, blank lines).
	Noise
)

// String is the tier's name as the page shows it.
func (t Tier) String() string {
	return [...]string{"root cause", "critical", "error", "warning", "other", "noise"}[t]
}

// Entry is one template of one launch that the other lacks.
type Entry struct {
	Tier     Tier
	Template string
	Sample   string // the first line with the template
	FirstSeq int64
	Count    int64 // lines with the template (for Noise: all noise lines)
	// Templates is how many noise templates a Noise entry collapses (1
	// otherwise).
	Templates int
	// Headline: an open or confirmed alarm quotes the line; it leads its
	// tier, before the traceback lines around it.
	Headline bool
	// Alarm is the alarm whose event the entry stands for (0: a kind of
	// line outside every alarm). An event is one entry however many of its
	// lines are new: Sample is its headline (or, when the headline is in
	// the other launch too, its first new line), Members the other new
	// kinds of line of its event (a traceback's frames), Count all their
	// lines.
	Alarm   int
	Members []Entry
	// Known: the event's headline is in the other launch too; only some of
	// its lines are new.
	Known bool
}

// Comparison is what is new in B and what is gone from A.
type Comparison struct {
	NewInB  []Entry
	OnlyInA []Entry
	// Partial: a launch has more templates than its summary keeps, so an
	// entry of tier Other may also be in the other launch.
	Partial bool
}

// Launches compares launch b with launch a (usually its predecessor).
func Launches(ctx context.Context, src Source, a, b int64) (Comparison, error) {
	var sums [2]store.TemplateSummary
	var heads [2][]store.AlarmHeadline
	for i, id := range []int64{a, b} {
		var err error
		if sums[i], err = src.LineTemplates(ctx, id); err != nil {
			return Comparison{}, err
		}
		if heads[i], err = src.AlarmHeadlines(ctx, id); err != nil {
			return Comparison{}, err
		}
	}
	return Comparison{
		NewInB:  NewIn(sums[1], heads[1], sums[0]),
		OnlyInA: NewIn(sums[0], heads[0], sums[1]),
		Partial: sums[0].Evicted > 0 || sums[1].Evicted > 0,
	}, nil
}

// NewIn returns the templates of x (whose open and confirmed alarms quote
// heads) that y lacks, ranked: by tier (the root cause first), within a
// tier alarm headlines first, then by first occurrence. Noise templates
// collapse into one Noise entry, last.
func NewIn(x store.TemplateSummary, heads []store.AlarmHeadline, y store.TemplateSummary) []Entry {
	inY := make(map[int64]bool, len(y.Templates))
	for _, t := range y.Templates {
		inY[t.Hash] = true
	}
	byHash := make(map[int64]*Entry)
	noise := Entry{Tier: Noise}
	for _, t := range x.Templates {
		if inY[t.Hash] {
			continue
		}
		if t.Noise {
			if noise.Templates == 0 || t.FirstSeq < noise.FirstSeq {
				noise.FirstSeq, noise.Sample = t.FirstSeq, t.Sample
			}
			noise.Count += t.Count
			noise.Templates++
			continue
		}
		byHash[t.Hash] = &Entry{Tier: tierOf(t.Severity), Template: t.Template, Sample: t.Sample,
			FirstSeq: t.FirstSeq, Count: t.Count, Templates: 1}
	}
	for _, h := range heads {
		tmpl, isNoise := classify.LineTemplate(h.Text)
		hash := templates.Hash(tmpl)
		if inY[hash] || isNoise {
			continue // the same error in both launches is not what changed
		}
		tier := Error
		switch {
		case h.Fatal && h.Cause == nil:
			tier = RootCause
		case h.Fatal:
			tier = Critical
		}
		if h.State != "" && h.State != "open" && h.State != "confirmed" {
			continue // a dismissed alarm's headline does not lead
		}
		e, ok := byHash[hash]
		if !ok {
			// Dropped from the summary by its cap: the headline itself
			// stands for it.
			e = &Entry{Tier: tier, Template: tmpl, Sample: h.Text, FirstSeq: h.Seq, Count: 1, Templates: 1}
			byHash[hash] = e
		}
		e.Tier, e.Headline = min(e.Tier, tier), true
	}
	out := make([]Entry, 0, len(byHash)+1)
	for _, e := range byHash {
		out = append(out, *e)
	}
	out = byEvent(out, heads, inY)
	slices.SortFunc(out, rank)
	if noise.Templates > 0 {
		out = append(out, noise)
	}
	return out
}

// rank orders entries: by tier (the root cause first), within a tier alarm
// headlines first, then by first occurrence.
func rank(a, b Entry) int {
	return cmp.Or(cmp.Compare(a.Tier, b.Tier), boolFirst(a.Headline, b.Headline),
		cmp.Compare(a.FirstSeq, b.FirstSeq), cmp.Compare(a.Template, b.Template))
}

// byEvent folds the entries whose first line lies in an alarm's event
// (between its first and last line) into one entry per event: its
// headline's entry when the headline is new, else its first new line's,
// holding the others as Members. An alarm's range may hold a line of
// another rank interleaved with its event; that line is folded with it.
func byEvent(entries []Entry, heads []store.AlarmHeadline, inOther map[int64]bool) []Entry {
	events := slices.Clone(heads)
	for i := range events {
		if events[i].FirstSeq == 0 && events[i].LastSeq == 0 {
			events[i].FirstSeq, events[i].LastSeq = events[i].Seq, events[i].Seq
		}
	}
	// The innermost event holds a line: the one that began last.
	slices.SortFunc(events, func(a, b store.AlarmHeadline) int { return cmp.Compare(b.FirstSeq, a.FirstSeq) })
	groups := map[int][]Entry{}
	var out []Entry
	for _, e := range entries {
		no := 0
		for _, a := range events {
			if e.FirstSeq >= a.FirstSeq && e.FirstSeq <= a.LastSeq {
				no = a.No
				break
			}
		}
		if no == 0 {
			out = append(out, e)
			continue
		}
		groups[no] = append(groups[no], e)
	}
	for _, a := range events {
		members, ok := groups[a.No]
		if !ok {
			continue
		}
		delete(groups, a.No)
		tmpl, _ := classify.LineTemplate(a.Text)
		hash := templates.Hash(tmpl)
		slices.SortFunc(members, func(x, y Entry) int { return cmp.Compare(x.FirstSeq, y.FirstSeq) })
		lead := slices.IndexFunc(members, func(m Entry) bool { return m.Headline && templates.Hash(m.Template) == hash })
		var head Entry
		if lead >= 0 {
			head = members[lead]
			members = slices.Delete(members, lead, lead+1)
		} else {
			// The headline is in the other launch too (or not a kind of
			// line it keeps): the event's first new line leads it.
			head, members = members[0], members[1:]
			head.Known = inOther[hash]
		}
		head.Alarm = a.No
		for _, m := range members {
			head.Tier = min(head.Tier, m.Tier)
			head.Count += m.Count
			head.Headline = head.Headline || m.Headline
		}
		head.Members = members
		out = append(out, head)
	}
	return out
}

// boolFirst orders true before false.
func boolFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

func tierOf(severity int) Tier {
	switch severity {
	case templates.SeverityCritical:
		return Critical
	case templates.SeverityError:
		return Error
	case templates.SeverityWarning:
		return Warning
	}
	return Other
}

// ConfigKey is one configuration key of two launches.
type ConfigKey struct {
	Key      string
	A, B     string
	InA, InB bool
}

// Config splits the configuration keys of two launches into those that
// differ (present in one only, or with another value) and those that are
// the same, each sorted by key.
func Config(a, b map[string]string) (changed, same []ConfigKey) {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		va, inA := a[k]
		vb, inB := b[k]
		d := ConfigKey{Key: k, A: va, B: vb, InA: inA, InB: inB}
		if inA && inB && va == vb {
			same = append(same, d)
		} else {
			changed = append(changed, d)
		}
	}
	return changed, same
}
