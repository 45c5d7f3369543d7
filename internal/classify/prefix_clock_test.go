package classify

import "testing"

// TestClockPrefix: text-generation-webui's "HH:MM:SS-micros LEVEL<pad>"
// prefix gives the level and an unindented body; a clock without a level
// word after it stays in the body.
func TestClockPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, level, body string
	}{
		{"11:02:19-880000 ERROR    Failed to load the model.", "ERROR", "Failed to load the model."},
		{"10:20:30-100900 WARNING  trust_remote_code is enabled.", "WARNING", "trust_remote_code is enabled."},
		{"09:00:00-100200 INFO     Starting Text generation web UI", "INFO", "Starting Text generation web UI"},
		{"09:00:00 CRITICAL disk full", "CRITICAL", "disk full"},
		{"12:00:01 took 3s to warm up", "", "12:00:01 took 3s to warm up"},
		// Not this reader's clock (no time is read), but a level word after
		// prefix-like fields: headLevel reads it.
		{"12:00:01-abc ERROR x", "ERROR", "x"},
	}
	for _, tt := range tests {
		p := ParsePrefix(tt.in, 2031)
		if p.Level != tt.level || p.Body != tt.body {
			t.Errorf("ParsePrefix(%q) = level %q body %q, want %q %q", tt.in, p.Level, p.Body, tt.level, tt.body)
		}
		if !p.Time.IsZero() {
			t.Errorf("ParsePrefix(%q): a time of day without a date gave time %v", tt.in, p.Time)
		}
	}
}

// TestKitchenPrefix: zerolog's console writer with time.Kitchen and its
// three-letter levels; anything else that starts with a clock stays body.
func TestKitchenPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, level, body string
	}{
		{"3:04PM INF Starting server address=:8080", "INFO", "Starting server address=:8080"},
		{"10:21AM WRN Client error status=404", "WARNING", "Client error status=404"},
		{"11:59PM ERR Server error error=\"model not found\"", "ERROR", "Server error error=\"model not found\""},
		{"1:00AM DBG config loaded", "DEBUG", "config loaded"},
		{"1:00AM FTL cannot open models dir", "FATAL", "cannot open models dir"},
		{"3:04PM XYZ not a level", "", "3:04PM XYZ not a level"},
		{"3:04 PM INF spaced", "", "3:04 PM INF spaced"},
		// Not zerolog's level (no time is read); headLevel reads the word.
		{"3:04PM INFO long word", "INFO", "long word"},
	}
	for _, tt := range tests {
		p := ParsePrefix(tt.in, 2031)
		if p.Level != tt.level || p.Body != tt.body {
			t.Errorf("ParsePrefix(%q) = level %q body %q, want %q %q", tt.in, p.Level, p.Body, tt.level, tt.body)
		}
		if !p.Time.IsZero() {
			t.Errorf("ParsePrefix(%q): a time of day gave time %v", tt.in, p.Time)
		}
	}
}

// TestMonthLevelPrefix: hivemind's "%b %d %H:%M:%S.%f [LEVEL]" prefix
// (Petals) gives the level and the time in the given year; a syslog line
// is no such prefix.
func TestMonthLevelPrefix(t *testing.T) {
	t.Parallel()
	p := ParsePrefix("Mar 04 10:01:57.004 [INFO] Started", 2031)
	if p.Level != "INFO" || p.Body != "Started" || p.Time.Format("2006-01-02 15:04:05.000") != "2031-03-04 10:01:57.004" {
		t.Errorf("got level %q body %q time %v", p.Level, p.Body, p.Time)
	}
	p = ParsePrefix("Mar  4 10:01:57 [WARN] low disk", 2031)
	if p.Level != "WARNING" || p.Body != "low disk" {
		t.Errorf("space-padded day: level %q body %q", p.Level, p.Body)
	}
	p = ParsePrefix("Mar 04 10:01:57 gpu-3 heron[12]: [INFO] hello", 2031)
	if p.Origin == "" || p.Body != "hello" {
		t.Errorf("a syslog line: origin %q body %q, want its envelope peeled", p.Origin, p.Body)
	}
}
