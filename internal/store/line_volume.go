package store

import (
	"context"
	"fmt"
	"time"
)

// VolumeBucket is how many lines of a launch fall in one bucket of time:
// all of them, those of errors (kind error or part of an alarm) and
// warnings.
type VolumeBucket struct {
	Lines, Errors, Warnings int64
}

// LineVolume counts a launch's lines in n buckets of width each, the first
// beginning at from, on the launch clock: the line-volume histogram above
// the log. It reads the times of rows (lines_time_idx) and of compacted
// blocks in range, nothing of the text; a line at the end of the last
// bucket counts in it.
func (s *Store) LineVolume(ctx context.Context, launchID int64, from time.Time, width time.Duration, n int) ([]VolumeBucket, error) {
	out := make([]VolumeBucket, n)
	if n <= 0 || width <= 0 {
		return out, nil
	}
	to := from.Add(width * time.Duration(n))
	rows, err := s.pool.Query(ctx, `
		WITH t AS (
			SELECT ts, kind, alarm_no FROM lines WHERE launch_id = $1 AND ts >= $2 AND ts <= $3
			UNION ALL
			SELECT u.ts, u.kind, u.alarm_no
			FROM line_blocks b CROSS JOIN LATERAL unnest(b.ts, b.kind, b.alarm_no) AS u(ts, kind, alarm_no)
			WHERE b.launch_id = $1 AND b.max_ts >= $2 AND b.min_ts <= $3 AND u.ts >= $2 AND u.ts <= $3
		)
		SELECT LEAST(floor(extract(epoch FROM ts - $2) / $4)::integer, $5 - 1) AS bucket, count(*),
			count(*) FILTER (WHERE kind = 'error' OR alarm_no IS NOT NULL),
			count(*) FILTER (WHERE kind = 'warning' AND alarm_no IS NULL)
		FROM t GROUP BY bucket`, launchID, from, to, width.Seconds(), n)
	if err != nil {
		return nil, fmt.Errorf("store: line volume: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var b int
		var v VolumeBucket
		if err := rows.Scan(&b, &v.Lines, &v.Errors, &v.Warnings); err != nil {
			return nil, fmt.Errorf("store: line volume: %w", err)
		}
		if b >= 0 && b < n {
			out[b] = v
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: line volume: %w", err)
	}
	return out, nil
}
