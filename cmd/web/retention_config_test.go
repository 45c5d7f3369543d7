package main

import (
	"io"
	"testing"
	"time"
)

func TestRetentionFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		env     string
		want    time.Duration
		wantErr bool
	}{
		{want: 0},
		{args: []string{"--retention", "0"}, want: 0},
		{args: []string{"--retention", "30d"}, want: 30 * 24 * time.Hour},
		{args: []string{"--retention", "720h"}, want: 720 * time.Hour},
		{env: "14d", want: 14 * 24 * time.Hour},
		{args: []string{"--retention", "2h"}, env: "14d", want: 2 * time.Hour},
		{args: []string{"--retention", "30m"}, wantErr: true}, // a typo must not delete a fleet
		{args: []string{"--retention", "-1h"}, wantErr: true},
		{args: []string{"--retention", "thirty"}, wantErr: true},
		{args: []string{"--max-new-launches-per-minute", "-1"}, wantErr: true},
	} {
		getenv := func(name string) string {
			if name == "LAUNCHWATCH_RETENTION" {
				return tc.env
			}
			return ""
		}
		c, err := parseConfig(tc.args, getenv, io.Discard)
		if (err != nil) != tc.wantErr || (err == nil && c.Retention != tc.want) {
			t.Errorf("%v env %q: %s %v, want %s (error %v)", tc.args, tc.env, c.Retention, err, tc.want, tc.wantErr)
		}
	}
	if c, err := parseConfig(nil, func(string) string { return "" }, io.Discard); err != nil || c.MaxNewLaunchesPerMinute != 600 || newLaunchLimit(0) != -1 {
		t.Errorf("default new-launch limit %d %v", c.MaxNewLaunchesPerMinute, err)
	}
}
