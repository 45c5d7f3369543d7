package export

import "time"

// States of a decided alarm, as the export names them.
const (
	StateConfirmed  = "confirmed"
	StateDismissed  = "dismissed"
	StateSuppressed = "suppressed"
)

// States lists what state= accepts.
var States = []string{StateConfirmed, StateDismissed, StateSuppressed}

// Record is one line of alarms.jsonl: a decided alarm with its launch,
// its lines, a few lines around them, and the decision.
type Record struct {
	Launch      string            `json:"launch"`
	Server      string            `json:"server"`
	Labels      map[string]string `json:"labels"`
	Alarm       int               `json:"alarm"`
	Kind        string            `json:"kind"`
	Fatal       bool              `json:"fatal"`
	State       string            `json:"state"`
	Rule        *Rule             `json:"rule,omitempty"` // the rule that suppressed it
	Headline    string            `json:"headline"`
	HeadlineSeq int64             `json:"headline_seq"`
	Template    string            `json:"template"`
	Fingerprint string            `json:"fingerprint"`
	Ranks       int               `json:"ranks"`
	FirstSeq    int64             `json:"first_seq"`
	LastSeq     int64             `json:"last_seq"`
	// Lines are the alarm's own lines (those that belong to its event, not
	// every line between its first and last); at most MaxOwnLines, and
	// LinesTruncated says when there were more.
	Lines          []Line `json:"lines"`
	LinesTruncated bool   `json:"lines_truncated,omitempty"`
	// Before and After are up to ContextLines lines around the event.
	Before []Line `json:"context_before"`
	After  []Line `json:"context_after"`
	// DecidedBy, DecidedAt and Reason: the person (or, for a suppressed
	// alarm, the rule's author), when and why.
	DecidedBy string    `json:"decided_by"`
	DecidedAt time.Time `json:"decided_at"`
	Reason    string    `json:"reason"`
}

// Rule is the suppression rule of a suppressed alarm.
type Rule struct {
	ID      int64  `json:"id"`
	Matcher string `json:"matcher"`
	Pattern string `json:"pattern"`
	Author  string `json:"author"`
	Reason  string `json:"reason"`
}

// Line is one stored line in a record.
type Line struct {
	Seq  int64     `json:"seq"`
	TS   time.Time `json:"ts"`
	Rank string    `json:"rank,omitempty"`
	Text string    `json:"text"`
}

// Limits of one record.
const (
	ContextLines = 3   // lines before and after the event
	MaxOwnLines  = 400 // an alarm's own lines (eight ranks' tracebacks fit)
)
