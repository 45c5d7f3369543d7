package timeline

import (
	"context"
	"time"

	"launchwatch/internal/store"
)

// LogQuery is the window of a launch's log a page asks for.
type LogQuery struct {
	Filter store.LineFilter
	// Zoom is the timeline's time range on the launch clock of a launch
	// whose first line is at origin (a zero time is an open end); nil when
	// the page is not zoomed. A zoomed log shows only the range's lines.
	Zoom func(origin time.Time) (from, to time.Time)
	// Refused says the query was refused (the page shows why): no line
	// is read.
	Refused bool
}

// Log is the window read, with the filter it was read with: narrowed to
// the zoom's seqs when zoomed, for the paging links.
type Log struct {
	Filter store.LineFilter
	Window store.LineWindow
}

// LogView is the launch page's log section alone: the launch, its window
// and its alarms (the section links to them).
type LogView struct {
	Launch *store.Launch
	Log    Log
	Alarms []store.Alarm // what the section links to of each (store.AlarmMarks)
}

// LoadLog reads the log section of the launch named key with the window
// lq selects. ErrNotFound when there is no such launch.
func LoadLog(ctx context.Context, st *store.Store, key string, lq LogQuery) (*LogView, error) {
	l, err := st.LaunchByKey(ctx, key)
	if err != nil {
		return nil, err
	}
	v := &LogView{Launch: l}
	var first time.Time
	if lq.Zoom != nil && !lq.Refused {
		if first, _, err = st.LineSpan(ctx, l.ID); err != nil {
			return nil, err
		}
	}
	if v.Log, err = readLog(ctx, st, l, lq, first); err != nil {
		return nil, err
	}
	if v.Alarms, err = st.AlarmMarks(ctx, l.ID); err != nil {
		return nil, err
	}
	return v, nil
}

// readLog reads the window of l's lines lq selects, within the zoom's
// time range when zoomed (first is l's first line's time, its origin). A
// refused query reads nothing.
func readLog(ctx context.Context, st *store.Store, l *store.Launch, lq LogQuery, first time.Time) (Log, error) {
	out := Log{Filter: lq.Filter}
	if lq.Refused {
		return out, nil
	}
	lastSeq := l.LastSeq
	if lq.Zoom != nil {
		from, to := lq.Zoom(first)
		lo, hi, err := st.SeqRange(ctx, l.ID, from, to)
		if err != nil {
			return out, err
		}
		f := &out.Filter
		f.InRange, f.MinSeq, f.MaxSeq = true, lo, hi
		if lo == 0 {
			f.MinSeq, f.MaxSeq = 1, 0 // no line in the range
		}
		if f.After == 0 && f.Before == 0 && lo > 0 {
			f.After = lo - 1
		}
		lastSeq = min(lastSeq, f.MaxSeq)
	}
	w, err := st.FilteredWindow(ctx, l.ID, out.Filter, lastSeq)
	out.Window = w
	return out, err
}
