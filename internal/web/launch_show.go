package web

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/status"
	"launchwatch/internal/store"
)

// launchJSON is the API shape of a launch.
type launchJSON struct {
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
	Settling bool          `json:"settling,omitempty"`
	Phase    string        `json:"phase"`
	Progress *progressJSON `json:"progress,omitempty"`
	Counts   countsJSON    `json:"counts"`
	Times    timesJSON     `json:"times"`
	LastSeq  int64         `json:"last_seq"`
	ReadySeq *int64        `json:"ready_seq,omitempty"`
	// Endpoints are the addresses the server announced it listens on
	// ("http://0.0.0.0:8000"), in the order first seen; [] when none.
	Endpoints []string          `json:"endpoints"`
	ExitCode  *int              `json:"exit_code,omitempty"`
	Signal    *string           `json:"exit_signal,omitempty"`
	Config    map[string]string `json:"config"`
	Alarms    []alarmJSON       `json:"alarms"`
	// SuppressedFatal lists the fatal-looking alarms a suppression rule
	// hides: a rule cannot make a crash disappear without a trace.
	SuppressedFatal []suppressedFatalJSON `json:"suppressed_fatal"`
	LinesPath       string                `json:"lines_url"`
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
	JudgedBy       judgedByJSON `json:"judged_by"`
	ReclassifiedAt *time.Time   `json:"reclassified_at,omitempty"`
}

// judgedByJSON names a launch's judges.
type judgedByJSON struct {
	Classifier string  `json:"classifier"`
	Signatures []int64 `json:"signatures"`
}

// suppressedFatalJSON is a fatal-looking alarm suppressed by a rule.
type suppressedFatalJSON struct {
	No       int    `json:"no"`
	RuleID   int64  `json:"rule_id"`
	Headline string `json:"headline"`
	Settled  bool   `json:"settled"`
}

// alarmJSON is the API shape of an alarm.
type alarmJSON struct {
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
	HealthAfterDeath *healthAfterDeathJSON `json:"health_after_death,omitempty"`
}

// healthAfterDeathJSON says when health probes passed after a fatal
// alarm (the first and the latest such pass) and what answered.
type healthAfterDeathJSON struct {
	Since  time.Time `json:"since"`
	Last   time.Time `json:"last"`
	Detail string    `json:"detail"`
}

// healthAfterDeath is the API view of a's passes after its death.
func healthAfterDeath(a store.Alarm) *healthAfterDeathJSON {
	if a.HealthOKSince == nil || a.HealthOKLast == nil {
		return nil
	}
	return &healthAfterDeathJSON{Since: *a.HealthOKSince, Last: *a.HealthOKLast, Detail: a.HealthOKDetail}
}

type progressJSON struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

type countsJSON struct {
	Lines       int64 `json:"lines"`
	Alarms      int   `json:"alarms"`
	OpenAlarms  int   `json:"open_alarms"`
	FatalAlarms int   `json:"fatal_alarms"`
}

// timesJSON are the launch's times. first_line, last_line, ready and ended
// are on the launch clock, like the timeline and each line's ts; created,
// updated and last_heartbeat are when the server recorded them.
type timesJSON struct {
	Created       time.Time  `json:"created"`
	Updated       time.Time  `json:"updated"`
	FirstLine     *time.Time `json:"first_line,omitempty"`
	LastLine      *time.Time `json:"last_line,omitempty"`
	Ready         *time.Time `json:"ready,omitempty"`
	Ended         *time.Time `json:"ended,omitempty"`
	LastHeartbeat *time.Time `json:"last_heartbeat,omitempty"`
}

// newLaunchJSON shows l as seen at now: a launch quiet for longer than
// silentAfter while loading is silent.
func newLaunchJSON(l *store.Launch, now time.Time, silentAfter time.Duration) launchJSON {
	j := launchJSON{
		Key: l.Key, Name: l.Name, Server: l.Server, ServerDetected: l.ServerDetected, Host: l.Host, Labels: l.Labels,
		Status: status.Observed(l.Status, l.LastHeard(), now, silentAfter), Settling: l.SettleAt != nil,
		Phase: l.Phase, LastSeq: l.LastSeq, ReadySeq: l.ReadySeq, ExitCode: l.ExitCode, Signal: l.ExitSignal,
		Config: l.Config, LinesPath: "/api/v1/launches/" + l.Key + "/lines", Endpoints: l.Endpoints,
		Counts: countsJSON{Lines: l.LineCount, Alarms: l.Alarms, OpenAlarms: l.OpenAlarms, FatalAlarms: l.FatalAlarms},
		Times: timesJSON{Created: l.CreatedAt, Updated: l.UpdatedAt, FirstLine: l.FirstLineAt, LastLine: l.LastLineAt,
			Ready: l.ReadyAt, Ended: l.EndedAt, LastHeartbeat: l.LastHeartbeatAt},
		JudgedBy:       judgedByJSON{Classifier: l.JudgedBy, Signatures: l.SignatureIDs},
		ReclassifiedAt: l.ReclassifiedAt,
	}
	if j.JudgedBy.Signatures == nil {
		j.JudgedBy.Signatures = []int64{}
	}
	if l.PhaseTotal > 0 {
		j.Progress = &progressJSON{Done: l.PhaseDone, Total: l.PhaseTotal}
	}
	if j.Endpoints == nil {
		j.Endpoints = []string{}
	}
	return j
}

// launchShow answers GET /api/v1/launches/{key}: status, phase, counts,
// times. A launch whose fatal alarm is settling is answered once it settled
// (at most the settle bound later), so a reader asking right after the last
// batch gets the verdict, not the status it is about to leave; ?wait=0
// answers at once, with "settling": true.
func (h *handler) launchShow(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	wait, err := intParam(c.QueryParams(), "wait", 1, 0, 1)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	l, err := h.store.LaunchByKey(ctx, key)
	if err != nil {
		return err
	}
	if wait == 1 {
		if l, _, err = h.pipe.AwaitSettled(ctx, l); err != nil {
			return err
		}
	}
	j, err := h.launchView(ctx, l)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, j)
}

// launchView is the API view of l now, with its alarms.
func (h *handler) launchView(ctx context.Context, l *store.Launch) (launchJSON, error) {
	j := newLaunchJSON(l, h.pipe.Clock().Now(), h.cfg.SilentAfter)
	if err := h.clockTimes(ctx, l, &j); err != nil {
		return j, err
	}
	alarms, err := h.store.Alarms(ctx, l.ID)
	if err != nil {
		return j, err
	}
	j.Alarms = make([]alarmJSON, len(alarms))
	for i, a := range alarms {
		j.Alarms[i] = alarmJSON{No: a.No, Kind: a.Kind, Fatal: a.Fatal, State: a.State, Headline: a.Headline,
			HeadlineSeq: a.HeadlineSeq, FirstSeq: a.FirstSeq, LastSeq: a.LastSeq, Ranks: a.Ranks, Fingerprint: a.Fingerprint,
			Settled: a.Settled, Cause: a.Cause, HealthAfterDeath: healthAfterDeath(a)}
	}
	j.SuppressedFatal = []suppressedFatalJSON{}
	for _, a := range alarms {
		if a.Fatal && a.State == "suppressed" && a.RuleID != nil {
			j.SuppressedFatal = append(j.SuppressedFatal, suppressedFatalJSON{No: a.No, RuleID: *a.RuleID,
				Headline: a.Headline, Settled: a.Settled})
		}
	}
	return j, nil
}

// clockTimes puts j's line times on the launch clock: the first and last
// lines' and the ready line's own times, and the exit's, which the server
// recorded when it was reported: on a backfilled log's clock that is not a
// time of the log, so its last line stands for it.
func (h *handler) clockTimes(ctx context.Context, l *store.Launch, j *launchJSON) error {
	c, err := h.store.Clock(ctx, l.ID)
	if err != nil {
		return err
	}
	j.ClockOffset, j.ClockSource, j.ClockTZ = c.Offset.Seconds(), c.Source, c.TZ
	first, last, err := h.store.LineSpan(ctx, l.ID)
	if err != nil {
		return err
	}
	j.Times.FirstLine, j.Times.LastLine, j.Times.Ready = nil, nil, nil
	if first.IsZero() {
		return nil
	}
	j.Times.FirstLine, j.Times.LastLine = &first, &last
	if l.ReadySeq != nil {
		lines, err := h.store.LinesBetween(ctx, l.ID, *l.ReadySeq, *l.ReadySeq, 1)
		if err != nil {
			return err
		}
		if len(lines) > 0 {
			j.Times.Ready = &lines[0].TS
		}
	}
	if l.EndedAt != nil {
		ended := *l.EndedAt
		if c.Logged && c.Source == "" || ended.Before(last) {
			ended = last
		}
		j.Times.Ended = &ended
	}
	return nil
}
