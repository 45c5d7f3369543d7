// Package timeline is the read model of a launch's page: everything the
// page shows of one launch (its facts, phases, alarms with the lines
// around them, gaps, readiness, notes, decisions, the launch before it,
// its pin, what judged it, and one window of its log), read by Load in a
// fixed number of queries whatever the number of alarms. internal/web
// parses the request, calls it and turns the View into the page's props;
// internal/store holds the SQL. The gaps of unchanged launches are kept
// per process in a GapCache the caller owns.
package timeline

import (
	"context"
	"errors"
	"time"

	"launchwatch/internal/review"
	"launchwatch/internal/status"
	"launchwatch/internal/store"
)

// View is what the launch page shows of one launch, its times on the
// launch clock.
type View struct {
	Launch      *store.Launch
	Phases      []store.Phase
	Alarms      []store.Alarm // every alarm, what the page needs of each (store.AlarmMarks)
	Cards       []store.Alarm // the alarms whose cards the page shows (Cards.Pick), whole, in order
	First, Last time.Time     // the first and last line's times (zero without lines)
	Gaps        []store.Gap
	Ready       *time.Time           // the readiness line's time, nil if never ready
	Readies     []store.Line         // every ready line, the first included (at most ReadyMarks)
	Context     map[int][]store.Line // alarm number → its lines with context, for Cards
	Now         time.Time            // now on the launch clock
	Log         Log                  // the window of the log the page asked for
	Notes       []store.Annotation
	Audit       []store.AuditEvent // decisions on the launch's alarms since it was created
	Previous    *store.Previous    // the launch before it, nil when none
	Pin         store.LaunchPin
	Judgement   Judgement
}

// ReadyMarks bounds the ready lines the timeline reads; they are merged
// per column anyway.
const ReadyMarks = 200

// AlarmContextLines is how many lines an alarm card shows around its
// event, and AlarmMaxLines the most lines a card shows.
const (
	AlarmContextLines = 3
	AlarmMaxLines     = 60
)

// Load reads the launch page of the launch named key at time now, with
// the log window lq selects and the lines of the alarm cards cards picks
// (every alarm is read, for the timeline and the counts); gaps keeps the
// timeline's gaps between calls. ErrNotFound when there is no such launch.
func Load(ctx context.Context, st *store.Store, gaps *GapCache, key string, lq LogQuery, cards Cards, now time.Time) (*View, error) {
	l, err := st.LaunchByKey(ctx, key)
	if err != nil {
		return nil, err
	}
	v := &View{Launch: l}
	if v.Phases, err = st.Phases(ctx, l.ID); err != nil {
		return nil, err
	}
	if v.Alarms, err = st.AlarmMarks(ctx, l.ID); err != nil {
		return nil, err
	}
	if v.First, v.Last, err = st.LineSpan(ctx, l.ID); err != nil {
		return nil, err
	}
	if v.Gaps, err = gaps.get(ctx, st, l, v.First, GapThreshold(v.First, v.Last)); err != nil {
		return nil, err
	}
	// The ready line and the picked cards' lines with their context, in
	// one statement: the ready line's range comes last.
	if v.Cards, err = cards.read(ctx, st, l.ID, v.Alarms); err != nil {
		return nil, err
	}
	ranges := AlarmRanges(v.Cards)
	if l.ReadySeq != nil {
		ranges = append(ranges, [2]int64{*l.ReadySeq, *l.ReadySeq})
	}
	lines, err := st.LinesInRanges(ctx, l.ID, ranges, AlarmMaxLines)
	if err != nil {
		return nil, err
	}
	if l.ReadySeq != nil {
		if ready := lines[len(lines)-1]; len(ready) > 0 {
			v.Ready = &ready[0].TS
		}
		lines = lines[:len(lines)-1]
	}
	v.Context = make(map[int][]store.Line, len(v.Cards))
	for i, a := range v.Cards {
		v.Context[a.No] = lines[i]
	}
	if v.Readies, err = st.ReadyLines(ctx, l.ID, ReadyMarks); err != nil {
		return nil, err
	}
	v.Now = v.Last
	if l.Status == status.Starting || l.Status == status.Loading {
		v.Now = clockNow(v.Last, l.LastLineAt, now)
	}
	if v.Log, err = readLog(ctx, st, l, lq, v.First); err != nil {
		return nil, err
	}
	if v.Notes, err = st.Annotations(ctx, l.ID); err != nil {
		return nil, err
	}
	audit, err := st.AuditWithPrefix(ctx, review.SubjectPrefix(key))
	if err != nil {
		return nil, err
	}
	v.Audit = auditSince(audit, l.CreatedAt)
	switch prev, err := st.PreviousLaunch(ctx, l); {
	case err == nil:
		v.Previous = &prev
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	if v.Pin, err = st.LaunchPin(ctx, l.ID); err != nil {
		return nil, err
	}
	if v.Judgement, err = loadJudgement(ctx, st, l); err != nil {
		return nil, err
	}
	return v, nil
}

// AlarmRanges are the seq ranges of alarms' cards: each alarm's lines with
// AlarmContextLines on either side (read at most AlarmMaxLines a card).
func AlarmRanges(alarms []store.Alarm) [][2]int64 {
	out := make([][2]int64, 0, len(alarms)+1)
	for _, a := range alarms {
		out = append(out, [2]int64{a.FirstSeq - AlarmContextLines, a.LastSeq + AlarmContextLines})
	}
	return out
}

// GapThreshold is the shortest silence the timeline marks as a gap: long
// enough that ordinary pauses between log lines are not gaps.
func GapThreshold(first, last time.Time) time.Duration {
	return max(30*time.Second, last.Sub(first)/10)
}

// clockNow is now on the launch clock of a launch whose last line, at last
// on its clock, was received at receivedAt: the clock runs on from its
// last line, whatever the log's own times were (a replayed old log).
func clockNow(last time.Time, receivedAt *time.Time, now time.Time) time.Time {
	if receivedAt == nil || now.Before(*receivedAt) {
		return last
	}
	return last.Add(now.Sub(*receivedAt))
}

// auditSince keeps the audit events recorded since a launch was created.
// The audit log outlives a deleted launch (it is append-only), and alarm
// subjects name the launch by key: the decisions on the alarms of a
// deleted launch must not show on a new launch that reuses its key.
func auditSince(events []store.AuditEvent, created time.Time) []store.AuditEvent {
	kept := events[:0:0]
	for _, e := range events {
		if !e.At.Before(created) {
			kept = append(kept, e)
		}
	}
	return kept
}

// ReadyTime is the time of l's readiness line, nil if it was never ready.
func ReadyTime(ctx context.Context, st *store.Store, l *store.Launch) (*time.Time, error) {
	if l.ReadySeq == nil {
		return nil, nil
	}
	lines, err := st.LinesBetween(ctx, l.ID, *l.ReadySeq, *l.ReadySeq, 1)
	if err != nil || len(lines) == 0 {
		return nil, err
	}
	return &lines[0].TS, nil
}

// AlarmCard is one alarm of a launch with its lines and their context, as
// its card on the launch page shows it.
type AlarmCard struct {
	Launch *store.Launch
	Alarm  store.Alarm
	Lines  []store.Line
}

// LoadAlarmCard reads alarm no of the launch named key, for its card
// alone (a decision answered in place, the card's context fragment).
// ErrNotFound when there is no such launch or alarm.
func LoadAlarmCard(ctx context.Context, st *store.Store, key string, no int) (*AlarmCard, error) {
	l, err := st.LaunchByKey(ctx, key)
	if err != nil {
		return nil, err
	}
	a, err := st.Alarm(ctx, l.ID, no)
	if err != nil {
		return nil, err
	}
	r := AlarmRanges([]store.Alarm{a})[0]
	lines, err := st.LinesBetween(ctx, l.ID, r[0], r[1], AlarmMaxLines)
	if err != nil {
		return nil, err
	}
	return &AlarmCard{Launch: l, Alarm: a, Lines: lines}, nil
}
