package classify

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestDateUTCAgreesWithDate compares dateUTC with time.Date on every month
// of years 0..9999 and the fields' edges, and on random fields in the
// ranges prefixes can write (two-digit days, hours, minutes, seconds).
func TestDateUTCAgreesWithDate(t *testing.T) {
	t.Parallel()
	check := func(y, mo, d, h, mi, se, ns int) {
		t.Helper()
		got, want := dateUTC(y, mo, d, h, mi, se, ns), time.Date(y, time.Month(mo), d, h, mi, se, ns, time.UTC)
		if got != want {
			t.Fatalf("dateUTC(%d, %d, %d, %d, %d, %d, %d) = %v (%#v), time.Date %v (%#v)", y, mo, d, h, mi, se, ns, got, got, want, want)
		}
	}
	for y := 0; y <= 9999; y++ {
		for mo := 1; mo <= 12; mo++ {
			check(y, mo, 1, 0, 0, 0, 0)
			check(y, mo, 31, 23, 59, 59, 999999999)
			check(y, mo, 29, 12, 0, 0, 1)
		}
	}
	for _, y := range []int{-1, -400, 10000, 2026, 1 << 40} {
		check(y, 2, 29, 1, 2, 3, 4)
	}
	rng := rand.New(rand.NewPCG(13, 8))
	for range 1_000_000 {
		check(rng.IntN(10000), 1+rng.IntN(12), rng.IntN(100), rng.IntN(100), rng.IntN(100), rng.IntN(100), rng.IntN(1e9))
	}
}
