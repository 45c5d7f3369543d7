package classify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// State is the per-launch classifier state. The zero value is not ready for
// use; call New or Restore.
//
// This is the minimal classifier of the ingest seam: Python tracebacks become
// one alarm each with the final exception line as headline, SGLang's and
// uvicorn's readiness lines mark readiness, and ServerArgs dumps are config.
type State struct {
	Server  string  `json:"server"`
	Last    int64   `json:"last"`
	NextID  int     `json:"next_id"`
	Open    *Alarm  `json:"open,omitempty"` // the traceback being read, if any
	Readied *Marker `json:"ready,omitempty"`
	Alarms  int     `json:"alarms"`
	Fatal   int     `json:"fatal"`
	LastFat int64   `json:"last_fatal"`
}

// New returns the state of a launch that has seen no lines. server is the
// server family (sglang, vllm, tgi ...) if known, else "".
func New(server string) *State {
	return &State{Server: server, NextID: 1}
}

// Restore rebuilds a State saved with MarshalBinary.
func Restore(data []byte) (*State, error) {
	s := &State{}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("classify: restore state: %w", err)
	}
	return s, nil
}

// MarshalBinary saves the state so a later batch can continue from it.
func (s *State) MarshalBinary() ([]byte, error) { return json.Marshal(s) }

// LastSeq is the highest seq fed so far, 0 if none.
func (s *State) LastSeq() int64 { return s.Last }

// Summary returns the classifier's view of the whole launch.
func (s *State) Summary() Summary {
	return Summary{LastSeq: s.Last, Ready: s.Readied, Alarms: s.Alarms, FatalAlarms: s.Fatal, LastFatalSeq: s.LastFat}
}

var readyLine = regexp.MustCompile(`The server is fired up and ready to roll|Application startup complete\.`)

// Feed classifies the next lines of the launch, which must come in ascending
// seq order after every line fed before.
func (s *State) Feed(lines []Line) Result {
	var r Result
	for _, l := range lines {
		if l.Seq <= s.Last {
			continue
		}
		s.Last = l.Seq
		v := LineVerdict{Seq: l.Seq, Kind: KindPlain}
		switch {
		case s.Open != nil:
			v.Kind, v.Alarm = KindError, s.Open.ID
			s.Open.LastSeq = l.Seq
			t := strings.TrimSpace(l.Text)
			if t != "" && !strings.HasPrefix(l.Text, " ") && !strings.HasPrefix(l.Text, "\t") &&
				!strings.Contains(l.Text, "Traceback (most recent call last)") && !strings.HasPrefix(t, "During handling") && !strings.HasPrefix(t, "The above exception") {
				s.Open.Headline, s.Open.HeadlineSeq = t, l.Seq
				s.Open.Template = t
				sum := sha256.Sum256([]byte(string(s.Open.Kind) + "\x00" + t))
				s.Open.Fingerprint = hex.EncodeToString(sum[:8])
				r.Alarms = append(r.Alarms, *s.Open)
				s.Open = nil
			}
		case strings.Contains(l.Text, "Traceback (most recent call last):"):
			a := Alarm{ID: s.NextID, FirstSeq: l.Seq, LastSeq: l.Seq, Kind: AlarmTraceback, Fatal: true,
				Headline: strings.TrimSpace(l.Text), HeadlineSeq: l.Seq, Ranks: 1, Time: l.Time}
			s.NextID++
			s.Alarms++
			s.Fatal++
			s.LastFat = l.Seq
			s.Open = &a
			v.Kind, v.Alarm = KindError, a.ID
			r.Alarms = append(r.Alarms, a)
		case strings.Contains(l.Text, "server_args=ServerArgs("):
			v.Kind = KindConfig
		case readyLine.MatchString(l.Text):
			v.Kind = KindReady
			if s.Readied == nil {
				s.Readied = &Marker{Seq: l.Seq, Time: l.Time}
				r.Ready = s.Readied
			}
		}
		r.Lines = append(r.Lines, v)
	}
	if s.Open != nil {
		r.Alarms = append(r.Alarms, *s.Open) // the event grew; the latest copy of an ID wins
	}
	return r
}
