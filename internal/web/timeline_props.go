package web

import (
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"

	"launchwatch/internal/classify"
	"launchwatch/internal/review"
	"launchwatch/internal/status"
	"launchwatch/internal/store"
	"launchwatch/internal/timeline"
	"launchwatch/internal/views"
)

// launchPageData is the launch page's read model with the zoom it was
// asked for, which the timeline's props are drawn from.
type launchPageData struct {
	*timeline.View
	zoom zoomQuery // the timeline's time range, ?from=&to=
}

// mainConfigKeys are the configuration keys an engineer compares first
// between launches, across server families.
var mainConfigKeys = []string{"model_path", "model", "served_model_name", "tp_size", "tensor_parallel_size",
	"dp_size", "pp_size", "pipeline_parallel_size", "dtype", "quantization", "kv_cache_dtype",
	"mem_fraction_static", "gpu_memory_utilization", "cuda_graph_max_bs", "max_model_len", "context_length",
	"max_num_seqs", "max_running_requests"}

// lineHref is the permalink of a line: a log window that starts a little
// before it, scrolled to it.
func lineHref(key string, seq int64) string {
	return "/launches/" + key + windowHref(seq)
}

// windowHref is lineHref relative to the launch's page:
// "?after=SEQ-21#LSEQ".
func windowHref(seq int64) string {
	return "?after=" + strconv.FormatInt(max(0, seq-21), 10) + "#L" + strconv.FormatInt(seq, 10)
}

func (d *launchPageData) props() views.LaunchProps {
	l := d.Launch
	p := views.LaunchProps{Key: l.Key, Name: l.Name, Status: l.Status, Server: l.Server, Host: l.Host,
		Phase: l.Phase, PhaseDone: l.PhaseDone, PhaseTotal: l.PhaseTotal, ExitCode: l.ExitCode,
		ExitSignal: l.ExitSignal, LineCount: l.LineCount, OpenAlarms: l.OpenAlarms,
		Labels: sortedKV(l.Labels), Config: sortedKV(l.Config)}
	if !d.First.IsZero() {
		p.Start = &d.First
	}
	if d.Ready != nil && !d.First.IsZero() {
		ttr := d.Ready.Sub(d.First)
		p.TimeToReady = &ttr
	}
	for _, k := range mainConfigKeys {
		if v, ok := l.Config[k]; ok {
			p.MainConfig = append(p.MainConfig, views.KV{K: k, V: v})
		}
	}
	p.Timeline = d.timeline()
	// Every alarm counts (and the page's script counts them), but only
	// the picked ones have a card with its lines.
	p.Alarms = make([]views.AlarmMark, len(d.Alarms))
	for i, a := range d.Alarms {
		p.Alarms[i] = views.AlarmMark{No: a.No, State: a.State, Fatal: a.Fatal, RuleID: a.RuleID}
	}
	p.Cards = alarmCards(l.Key, d.Cards, d.Context, d.Audit)
	for _, n := range d.Notes {
		np := views.NoteProps{Anchor: review.NoteAnchor(n.ID), Author: n.Author, Body: n.Body, Created: n.CreatedAt}
		if n.Seq != nil {
			np.Seq, np.SeqHref = *n.Seq, lineHref(l.Key, *n.Seq)
		}
		p.Notes = append(p.Notes, np)
	}
	return p
}

// timelineInput is what the launch's timeline is drawn from: its phases,
// marks and restarts' reset lines, on the launch clock.
func (d *launchPageData) timelineInput() views.TimelineInput {
	l := d.Launch
	key := l.Key
	in := views.TimelineInput{Origin: d.First, Last: d.Last, Now: d.Now,
		Live: l.Status == status.Starting || l.Status == status.Loading}
	in.From, in.To = d.zoom.resolve(d.First)
	// A phase's link is made for the segments drawn alone (PhaseHref): a
	// long launch has tens of thousands of instances.
	in.Phases = make([]views.TimelinePhase, len(d.Phases))
	for i, ph := range d.Phases {
		in.Phases[i] = views.TimelinePhase{Name: ph.Name, BeginSeq: ph.BeginSeq, Begin: ph.Begin,
			End: ph.End, Done: ph.Done, Total: ph.Total}
	}
	in.PhaseHref = func(seq int64) string { return lineHref(key, seq) }
	if d.Ready != nil {
		in.Ready = &views.TimelineMark{At: *d.Ready, Href: lineHref(key, *l.ReadySeq)}
		in.Resets = append(in.Resets, *l.ReadySeq)
		in.Readies = append(in.Readies, *in.Ready)
	}
	for _, r := range d.Readies {
		// The launch's ready line may be one a health probe stood for, or
		// before a restart; later ones are the server ready again.
		if l.ReadySeq == nil || r.Seq > *l.ReadySeq {
			in.Readies = append(in.Readies, views.TimelineMark{At: r.TS, Href: lineHref(key, r.Seq)})
			in.Resets = append(in.Resets, r.Seq)
		}
	}
	if l.ExitCode != nil || l.ExitSignal != nil {
		// The exit is reported after the last line; on a backfilled log's
		// clock its report time is no time of the log (see timeline.LoadLaunchJSON).
		title := "exit"
		if l.ExitCode != nil {
			title += " " + strconv.Itoa(*l.ExitCode)
		}
		if l.ExitSignal != nil {
			title += " " + *l.ExitSignal
		}
		in.Exit = &views.TimelineMark{At: d.Last, Title: title, Href: lineHref(key, l.LastSeq)}
	}
	for _, a := range d.Alarms {
		at := d.First
		if a.FirstTS != nil {
			at = *a.FirstTS
		}
		if a.Fatal {
			in.Resets = append(in.Resets, a.FirstSeq)
		}
		in.Alarms = append(in.Alarms, views.TimelineAlarm{No: a.No, At: at, State: a.State, Headline: a.Headline,
			Href: lineHref(key, a.FirstSeq)})
	}
	for _, n := range d.Notes {
		at, href := d.First, "#"+review.NoteAnchor(n.ID)
		if n.At != nil {
			at = *n.At
		}
		if n.Seq != nil {
			href = lineHref(key, *n.Seq)
		}
		in.Notes = append(in.Notes, views.TimelineNote{At: at, Author: n.Author, Body: n.Body, Href: href})
	}
	for _, g := range d.Gaps {
		in.Gaps = append(in.Gaps, views.TimelineGap{From: g.From, To: g.To})
	}
	return in
}

func (d *launchPageData) timeline() views.TimelineProps {
	in := d.timelineInput()
	t := views.NewTimeline(in)
	t.Zooms = zoomLinks(d.Launch.Key, d.zoom, in)
	t.ZoomBase = "/launches/" + url.PathEscape(d.Launch.Key)
	return t
}

func alarmProps(key string, a store.Alarm, context []store.Line) views.AlarmProps {
	p := views.AlarmProps{LaunchKey: key, No: a.No, Kind: a.Kind, Fatal: a.Fatal, Headline: a.Headline,
		HeadlineSeq: a.HeadlineSeq, Ranks: a.Ranks, State: a.State, DecidedAt: a.DecidedAt, RuleID: a.RuleID,
		Href: lineHref(key, a.FirstSeq), HealthSince: a.HealthOKSince, HealthLast: a.HealthOKLast, HealthDetail: a.HealthOKDetail}
	if a.Cause != nil {
		p.Cause = *a.Cause
	}
	if a.DecidedBy != nil {
		p.DecidedBy = *a.DecidedBy
	}
	if a.Reason != nil {
		p.Reason = *a.Reason
	}
	for _, ln := range context {
		p.Context = append(p.Context, logLine(key, ln))
	}
	p.ContextLines = len(p.Context)
	return p
}

func logLine(key string, ln store.Line) views.LogLine {
	v := views.LogLine{Seq: ln.Seq, Kind: ln.Kind, Text: ln.Text, Href: lineHref(key, ln.Seq)}
	if ln.AlarmNo != nil {
		v.AlarmNo = *ln.AlarmNo
	}
	if ln.Kind == "config" {
		v.Config = sortedKV(parseConfigLine(ln.Text))
	}
	return v
}

// configStart finds where a configuration dump may begin in a line behind
// its prefixes: "ServerArgs(" or "{".
var configStart = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*\(|\{`)

// parseConfigLine reads the key/values of a configuration dump line with
// the classifier's parser, trying the first few places a dump may start.
func parseConfigLine(text string) map[string]string {
	for _, loc := range configStart.FindAllStringIndex(text, 5) {
		if m := classify.ParseConfig(text[loc[0]:]); len(m) > 0 {
			return m
		}
	}
	return nil
}

func sortedKV(m map[string]string) []views.KV {
	out := make([]views.KV, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, views.KV{K: k, V: m[k]})
	}
	return out
}
