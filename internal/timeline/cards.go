package timeline

import (
	"context"

	"launchwatch/internal/review"
	"launchwatch/internal/store"
)

// CardsInline is how many alarm cards the launch page shows; a launch's
// further alarms are a page of their own (LoadAlarms), CardsPerPage at a
// time. A crash loop raises thousands of alarms, and a card is its lines
// with their context: thousands of cards were megabytes of page and most
// of its time.
const (
	CardsInline  = 50
	CardsPerPage = 100
)

// Cards picks the alarms whose cards a page shows: of the visible ones
// (the alarms rules suppressed are hidden unless ShowSuppressed), at most
// Limit from the From-th on, and alarm Also (0: none) whatever the others
// (the one a decision was just made on).
type Cards struct {
	From, Limit    int
	ShowSuppressed bool
	Also           int
}

// Visible says whether a's card is shown at all.
func (c Cards) Visible(a store.Alarm) bool {
	return c.ShowSuppressed || a.State != "suppressed"
}

// Pick returns the alarms of alarms (in order) whose cards are shown.
func (c Cards) Pick(alarms []store.Alarm) []store.Alarm {
	var out []store.Alarm
	i := 0
	for _, a := range alarms {
		in := false
		if c.Visible(a) {
			in = i >= c.From && i < c.From+c.Limit
			i++
		}
		if in || a.No == c.Also && c.Also != 0 {
			out = append(out, a)
		}
	}
	return out
}

// read returns the whole of the alarms Pick picks of marks (every alarm
// of the launch, as store.AlarmMarks reads them).
func (c Cards) read(ctx context.Context, st *store.Store, launchID int64, marks []store.Alarm) ([]store.Alarm, error) {
	picked := c.Pick(marks)
	nos := make([]int, len(picked))
	for i, a := range picked {
		nos[i] = a.No
	}
	return st.AlarmsByNo(ctx, launchID, nos)
}

// VisibleCount is how many of alarms have a card at all.
func (c Cards) VisibleCount(alarms []store.Alarm) int {
	n := 0
	for _, a := range alarms {
		if c.Visible(a) {
			n++
		}
	}
	return n
}

// IndexOf is the place of alarm no among the visible alarms, -1 when it
// is not one of them.
func (c Cards) IndexOf(alarms []store.Alarm, no int) int {
	i := 0
	for _, a := range alarms {
		if !c.Visible(a) {
			continue
		}
		if a.No == no {
			return i
		}
		i++
	}
	return -1
}

// AlarmsView is a page of a launch's alarm cards: the launch, every alarm
// (for the counts), the picked ones with their lines, and the decisions
// on its alarms since it was created (each card's history).
type AlarmsView struct {
	Launch  *store.Launch
	Alarms  []store.Alarm // what the page needs of each (store.AlarmMarks)
	Cards   []store.Alarm
	Context map[int][]store.Line
	Audit   []store.AuditEvent
}

// LoadAlarms reads the alarm cards cards picks of the launch named key, in
// five statements whatever their number. ErrNotFound when there is no
// such launch.
func LoadAlarms(ctx context.Context, st *store.Store, key string, cards Cards) (*AlarmsView, error) {
	l, err := st.LaunchByKey(ctx, key)
	if err != nil {
		return nil, err
	}
	v := &AlarmsView{Launch: l}
	if v.Alarms, err = st.AlarmMarks(ctx, l.ID); err != nil {
		return nil, err
	}
	if v.Cards, err = cards.read(ctx, st, l.ID, v.Alarms); err != nil {
		return nil, err
	}
	lines, err := st.LinesInRanges(ctx, l.ID, AlarmRanges(v.Cards), AlarmMaxLines)
	if err != nil {
		return nil, err
	}
	v.Context = make(map[int][]store.Line, len(v.Cards))
	for i, a := range v.Cards {
		v.Context[a.No] = lines[i]
	}
	audit, err := st.AuditWithPrefix(ctx, review.SubjectPrefix(key))
	if err != nil {
		return nil, err
	}
	v.Audit = auditSince(audit, l.CreatedAt)
	return v, nil
}
