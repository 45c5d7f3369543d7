package compare

import (
	"context"
	"time"

	"launchwatch/internal/store"
	"launchwatch/internal/timeline"
)

// View is the read model of the compare page: both launches with what
// their sides show, and their comparison.
type View struct {
	A, B       Side
	Comparison Comparison
}

// Side is one launch of a comparison, its times on its launch clock.
type Side struct {
	Launch *store.Launch
	First  time.Time  // its first line's time (zero without lines)
	Ready  *time.Time // its readiness line's time, nil if never ready
	Phases []store.Phase
}

// Load reads the comparison of the launches named a and b. ErrNotFound
// when either does not exist.
func Load(ctx context.Context, st *store.Store, a, b string) (*View, error) {
	la, err := st.LaunchByKey(ctx, a)
	if err != nil {
		return nil, err
	}
	lb, err := st.LaunchByKey(ctx, b)
	if err != nil {
		return nil, err
	}
	v := &View{A: Side{Launch: la}, B: Side{Launch: lb}}
	if v.Comparison, err = Launches(ctx, st, la.ID, lb.ID); err != nil {
		return nil, err
	}
	for _, s := range []*Side{&v.A, &v.B} {
		if s.First, _, err = st.LineSpan(ctx, s.Launch.ID); err != nil {
			return nil, err
		}
		if s.Ready, err = timeline.ReadyTime(ctx, st, s.Launch); err != nil {
			return nil, err
		}
		if s.Phases, err = st.Phases(ctx, s.Launch.ID); err != nil {
			return nil, err
		}
	}
	return v, nil
}
