package api

import "time"

// Line is a stored line as the API shows it.
type Line struct {
	Seq        int64     `json:"seq"`
	TS         time.Time `json:"ts"` // on the launch clock
	ReceivedAt time.Time `json:"received_at"`
	Stream     string    `json:"stream,omitempty"`
	Kind       string    `json:"kind"`
	Level      string    `json:"level,omitempty"`
	Rank       string    `json:"rank,omitempty"`
	Alarm      *int      `json:"alarm,omitempty"` // the alarm the line belongs to, nil if none
	Text       string    `json:"text"`
}

// LinesPage is one page of a launch's lines:
// GET /api/v1/launches/{key}/lines?after=SEQ&limit=N.
type LinesPage struct {
	Launch string `json:"launch"`
	Lines  []Line `json:"lines"`
	// NextAfter is the after= value of the next page; absent when this page
	// reached the last stored line.
	NextAfter *int64 `json:"next_after,omitempty"`
}

// LiveMessage is one message of a launch's live stream
// (GET /api/v1/launches/{key}/live): the launch's state whenever it
// changes, the lines as they are stored, or "absent" while the launch does
// not exist yet.
type LiveMessage struct {
	Type   string  `json:"type"` // "launch", "lines" or "absent"
	Launch *Launch `json:"launch,omitempty"`
	Lines  []Line  `json:"lines,omitempty"`
}
