package bench_test

import (
	"cmp"
	"fmt"
	"slices"
	"syscall"
	"time"
)

// ratio prints one line of the report: the figure, its anchor, the ratio
// and the target, and whether the ratio meets it.
func ratio(name, figure, anchor string, r float64, target string, ok bool, note string) {
	verdict := "meets"
	if !ok {
		verdict = "MISSES"
	}
	fmt.Printf("ratio %-20s %-30s anchor %-34s ratio %6.2f×  target %-8s %-6s %s\n", name, figure, anchor, r, target, verdict, note)
}

// cpuTime is the user+system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// percentile is the nearest-rank p-th percentile of samples (the 50th
// of an odd number of them is the middle one).
func percentile[T cmp.Ordered](samples []T, p float64) T {
	s := slices.Clone(samples)
	slices.Sort(s)
	i := max(0, int(float64(len(s))*p/100+0.999999)-1)
	return s[min(i, len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
