package bench_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// clockTick is the unit of /proc/PID/stat's CPU times (USER_HZ, 100 on
// Linux everywhere that matters here).
const clockTick = 10 * time.Millisecond

// databaseCPU is the CPU time used so far by the processes of pool's
// database server (its backends and background workers, as
// pg_stat_activity lists them): what the database spent, as opposed to
// how long its statements took. Processes that ended are not counted.
func databaseCPU(ctx context.Context, pool *pgxpool.Pool) map[int]time.Duration {
	out := map[int]time.Duration{}
	rows, err := pool.Query(ctx, `SELECT pid FROM pg_stat_activity`)
	if err != nil {
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) != nil {
			continue
		}
		if t, ok := processCPU(pid); ok {
			out[pid] = t
		}
	}
	return out
}

// processCPU is the CPU time process pid used so far.
func processCPU(pid int) (time.Duration, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The fields after the command name (which may hold spaces) start at
	// its closing parenthesis; utime and stime are the 14th and 15th.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * clockTick, true
}

// cpuSince is the CPU time the database's processes used since before.
func cpuSince(ctx context.Context, pool *pgxpool.Pool, before map[int]time.Duration) time.Duration {
	var d time.Duration
	for pid, t := range databaseCPU(ctx, pool) {
		d += t - before[pid]
	}
	return d
}
