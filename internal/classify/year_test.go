package classify

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestYearCacheIsYear holds yearCache to time.Time.Year over times near
// new year (both sides, before 1970 and far ahead), random ones, and zones
// other than UTC, in an order that moves the cache back and forth.
func TestYearCacheIsYear(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 10))
	var c yearCache
	zones := []*time.Location{time.UTC, time.FixedZone("x", 5*3600), time.FixedZone("y", -11*3600), time.Local}
	var times []time.Time
	for y := 1890; y <= 2110; y += 1 + rng.IntN(7) {
		ny := time.Date(y, time.January, 1, 0, 0, 0, 0, time.UTC)
		for _, d := range []time.Duration{-time.Nanosecond, 0, time.Nanosecond, -time.Second, time.Second, -13 * time.Hour, 13 * time.Hour} {
			times = append(times, ny.Add(d))
		}
	}
	for range 50000 {
		times = append(times, time.Unix(rng.Int64N(1<<33)-1<<31, rng.Int64N(1e9)).UTC())
	}
	times = append(times, time.Time{})
	for i, tm := range times {
		if i%5 == 0 {
			tm = tm.In(zones[rng.IntN(len(zones))])
		}
		if got, want := c.of(tm), tm.Year(); got != want {
			t.Fatalf("yearCache.of(%v) = %d, want %d", tm, got, want)
		}
		if rng.IntN(3) == 0 { // the same year again, from the cache
			if got, want := c.of(tm), tm.Year(); got != want {
				t.Fatalf("cached yearCache.of(%v) = %d, want %d", tm, got, want)
			}
		}
	}
}
