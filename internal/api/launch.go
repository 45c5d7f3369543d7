// Package api defines the JSON shapes of Launchwatch's HTTP API once: the
// server encodes them and the client (internal/client, the command line)
// decodes the same types, so neither can lose a field the other has.
package api

import "time"

// Launch is the API shape of a launch: GET /api/v1/launches/{key}.
type Launch struct {
	Key    string `json:"key"`
	Name   string `json:"name"`
	Server string `json:"server"`
	// ServerDetected: the launch was shipped without a server, and Server
	// is the family the classifier detected in its lines.
	ServerDetected bool              `json:"server_detected"`
	Host           string            `json:"host"`
	Labels         map[string]string `json:"labels"`
	Status         string            `json:"status"`
	// Settling is set while a fatal alarm waits to settle (at most the
	// settle bound after the last line): status is not a verdict yet.
	Settling bool      `json:"settling,omitempty"`
	Phase    string    `json:"phase"`
	Progress *Progress `json:"progress,omitempty"`
	Counts   Counts    `json:"counts"`
	Times    Times     `json:"times"`
	LastSeq  int64     `json:"last_seq"`
	ReadySeq *int64    `json:"ready_seq,omitempty"`
	// Endpoints are the addresses the server announced it listens on
	// ("http://0.0.0.0:8000"), in the order first seen; [] when none.
	Endpoints []string          `json:"endpoints"`
	ExitCode  *int              `json:"exit_code,omitempty"`
	Signal    *string           `json:"exit_signal,omitempty"`
	Config    map[string]string `json:"config"`
	Alarms    []Alarm           `json:"alarms"`
	// SuppressedFatal lists the fatal-looking alarms a suppression rule
	// hides: a rule cannot make a crash disappear without a trace.
	SuppressedFatal []SuppressedFatal `json:"suppressed_fatal"`
	LinesPath       string            `json:"lines_url"`
	// ClockOffset is what was added to the log's own times to put them on
	// the launch clock, in seconds (-7200 for a host writing UTC+2 without
	// an offset); ClockSource says where it came from: "estimated" from
	// lines received live, "tz" from the shipper's --tz (ClockTZ), or ""
	// when nothing was measured (a backfilled log keeps its own times).
	ClockOffset float64 `json:"clock_offset"`
	ClockSource string  `json:"clock_source"`
	ClockTZ     string  `json:"clock_tz,omitempty"`
	// JudgedBy is what judged the launch last: the classifier and the
	// taught signatures in its scope then; ReclassifiedAt is when it was
	// last reclassified on request.
	JudgedBy       JudgedBy   `json:"judged_by"`
	ReclassifiedAt *time.Time `json:"reclassified_at,omitempty"`
}

// JudgedBy names a launch's judges.
type JudgedBy struct {
	Classifier string  `json:"classifier"`
	Signatures []int64 `json:"signatures"`
}

// SuppressedFatal is a fatal-looking alarm suppressed by a rule.
type SuppressedFatal struct {
	No       int    `json:"no"`
	RuleID   int64  `json:"rule_id"`
	Headline string `json:"headline"`
	Settled  bool   `json:"settled"`
}

// Alarm is the API shape of an alarm.
type Alarm struct {
	No          int    `json:"no"`
	Kind        string `json:"kind"`
	Fatal       bool   `json:"fatal"`
	State       string `json:"state"`
	Headline    string `json:"headline"`
	HeadlineSeq int64  `json:"headline_seq"`
	FirstSeq    int64  `json:"first_seq"`
	LastSeq     int64  `json:"last_seq"`
	Ranks       int    `json:"ranks"`
	Fingerprint string `json:"fingerprint"`
	// Settled: the event can no longer change; a fatal alarm counts for
	// the status only once settled (the page shows it as settling).
	Settled bool `json:"settled"`
	// Cause is the number of the alarm this one is a consequence of (a
	// launcher's report of its child, "See root cause above"), null for a
	// root cause; a consequence is decided with its cause.
	Cause *int `json:"cause"`
	// HealthAfterDeath is set on a fatal alarm after which a health probe
	// still passed: the server's health endpoint answers for a dead engine.
	HealthAfterDeath *HealthAfterDeath `json:"health_after_death,omitempty"`
}

// HealthAfterDeath says when health probes passed after a fatal
// alarm (the first and the latest such pass) and what answered.
type HealthAfterDeath struct {
	Since  time.Time `json:"since"`
	Last   time.Time `json:"last"`
	Detail string    `json:"detail"`
}

// Progress is the progress within the current phase (12 of 64 shards).
type Progress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// Counts are a launch's line and alarm counts.
type Counts struct {
	Lines       int64 `json:"lines"`
	Alarms      int   `json:"alarms"`
	OpenAlarms  int   `json:"open_alarms"`
	FatalAlarms int   `json:"fatal_alarms"`
}

// Times are the launch's times. first_line, last_line, ready and ended
// are on the launch clock, like the timeline and each line's ts; created,
// updated and last_heartbeat are when the server recorded them.
type Times struct {
	Created       time.Time  `json:"created"`
	Updated       time.Time  `json:"updated"`
	FirstLine     *time.Time `json:"first_line,omitempty"`
	LastLine      *time.Time `json:"last_line,omitempty"`
	Ready         *time.Time `json:"ready,omitempty"`
	Ended         *time.Time `json:"ended,omitempty"`
	LastHeartbeat *time.Time `json:"last_heartbeat,omitempty"`
}
