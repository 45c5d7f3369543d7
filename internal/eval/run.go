package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"

	"launchwatch/internal/classify"
	"launchwatch/internal/status"
)

// Run is the classifier's final view of one launch after applying every
// Result the way ingest does (the latest verdict per seq, the latest copy of
// each alarm ID), the stream's end included: Feed settles the state after
// the last batch.
type Run struct {
	Verdicts  []classify.LineVerdict // Verdicts[i] is line i+1
	Alarms    []classify.Alarm       // alarms that were not withdrawn, by ID
	Withdrawn int                    // alarms created and later withdrawn
	Ready     *classify.Marker
	Phases    []classify.Phase
	Config    map[string]string
	// Statuses holds the launch status after each batch, as a client of
	// the server sees it (only settled fatal alarms count; see Replay).
	Statuses []string
	// Final is the status once the stream ended and every event settled:
	// what a client reading the launch after its last batch is told. It is
	// not a status between batches, so it does not count for the verdict.
	Final string
}

// BatchFunc returns the size of the next batch.
type BatchFunc func() int

// LineByLine feeds one line per call.
func LineByLine() int { return 1 }

// RandomBatches returns seeded batch sizes between 1 and 200, sometimes the
// whole rest of the log: the consistency run's batches.
func RandomBatches(seed uint64) BatchFunc {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return func() int {
		switch r.IntN(10) {
		case 0:
			return 1 << 30
		case 1, 2, 3:
			return 1 + r.IntN(3)
		default:
			return 1 + r.IntN(200)
		}
	}
}

// MaxVerdictBatch is the largest batch of the verdict run, as in
// score_api.py (--max-batch 40).
const MaxVerdictBatch = 40

// VerdictBatches returns seeded batch sizes between 1 and MaxVerdictBatch:
// how a shipper's batches reach the server. The verdict run and
// `eval --url` draw the same sizes for the same seed.
func VerdictBatches(seed uint64) BatchFunc {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	return func() int { return 1 + r.IntN(MaxVerdictBatch) }
}

// replay applies the Results of one classifier State as ingest stores them.
type replay struct {
	st       *classify.State
	fed      classify.Result // the last Feed's, whose memory the next reuses
	verdicts []classify.LineVerdict
	alarms   map[int]classify.Alarm
	phases   map[string]classify.Phase
	config   map[string]string
	ready    *classify.Marker
	// readyNow: the batch just applied brought the ready line
	// (status.Facts.NewlyReady).
	readyNow bool
	last     string // the status after the previous batch
}

func (r *replay) apply(res classify.Result) error {
	for _, v := range res.Lines {
		if v.Seq < 1 || v.Seq > int64(len(r.verdicts)) {
			return fmt.Errorf("eval: verdict for unknown line %d", v.Seq)
		}
		r.verdicts[v.Seq-1] = v
	}
	for _, a := range res.Alarms {
		r.alarms[a.ID] = a
	}
	for _, p := range res.Phases {
		r.phases[fmt.Sprintf("%s/%d", p.Name, p.BeginSeq)] = p
	}
	for k, v := range res.Config {
		r.config[k] = v
	}
	if res.Unready != nil && r.ready != nil && r.ready.Seq == res.Unready.Seq {
		r.ready = nil // the server never began to serve after all
	}
	if res.Ready != nil && r.ready == nil {
		m := *res.Ready
		r.ready = &m
		r.readyNow = true
	}
	return nil
}

// status is the launch status the server would show now: an unsettled
// fatal alarm is not yet a verdict, so it does not count.
func (r *replay) status() string {
	f := status.Facts{Ready: r.ready != nil, Phase: r.st.Summary().Phase, WasReady: r.last == status.Ready, NewlyReady: r.readyNow}
	for _, a := range r.alarms {
		switch {
		case !a.Fatal || a.Withdrawn:
		case a.Settled:
			f.OpenFatal++
			if r.ready != nil && a.FirstSeq > r.ready.Seq {
				f.OpenFatalAfterReady++
			}
		case r.ready == nil || a.FirstSeq < r.ready.Seq:
			f.PendingFatal++ // as the server counts them (store.AlarmFacts)
		}
	}
	r.last = status.Of(f)
	return r.last
}

// Feed classifies lines (seq = line number) in batches, then ends the
// stream (State.Settle). With roundTrip the state is saved and restored
// between batches, as when consecutive batches reach different processes.
func Feed(lines []string, server string, next BatchFunc, roundTrip bool) (Run, error) {
	return feed(lines, server, next, roundTrip, false)
}

// FeedWith is Feed with classifier options (taught signatures), given to
// the state at its start and at every restore.
func FeedWith(lines []string, server string, next BatchFunc, roundTrip bool, opts ...classify.Option) (Run, error) {
	return feed(lines, server, next, roundTrip, false, opts...)
}

// Replay is Feed as a client of the server sees it that reads the launch
// after every batch (../shared/tools/score_api.py, `eval --url`): when a
// batch leaves a fatal alarm unsettled, the server's answer has no status,
// the client reads the launch, and the server, once the settle bound passed
// with no line, settles it as the stream's end (classify.SettleStreamEnd).
func Replay(lines []string, server string, next BatchFunc) (Run, error) {
	return feed(lines, server, next, true, true)
}

func feed(lines []string, server string, next BatchFunc, roundTrip, asked bool, opts ...classify.Option) (Run, error) {
	r := replay{st: classify.New(server, opts...), verdicts: make([]classify.LineVerdict, len(lines)),
		alarms: map[int]classify.Alarm{}, phases: map[string]classify.Phase{}, config: map[string]string{}}
	var statuses []string
	for i := 0; i < len(lines); {
		end := min(len(lines), i+max(1, next()))
		batch := make([]classify.Line, 0, end-i)
		for j := i; j < end; j++ {
			batch = append(batch, classify.Line{Seq: int64(j + 1), Text: lines[j]})
		}
		r.st.FeedInto(&r.fed, batch)
		if err := r.apply(r.fed); err != nil {
			return Run{}, err
		}
		if roundTrip {
			b, err := r.st.MarshalBinary()
			if err != nil {
				return Run{}, err
			}
			if r.st, err = classify.Restore(b, opts...); err != nil {
				return Run{}, err
			}
		}
		st := r.status()
		r.readyNow = false // the next read is after the next batch or the bound
		if asked && st != status.Ready && r.st.Summary().PendingFatal > 0 {
			// The answer had no status (a fatal alarm is not settled): the
			// client reads the launch, which settles it as the stream's end.
			if err := r.apply(r.st.Settle(classify.SettleStreamEnd)); err != nil {
				return Run{}, err
			}
			st = r.status()
		}
		statuses = append(statuses, st)
		i = end
	}
	if err := r.apply(r.st.Settle(classify.SettleStreamEnd)); err != nil {
		return Run{}, err
	}
	run := r.run(statuses)
	run.Final = r.status()
	return run, nil
}

func (r *replay) run(statuses []string) Run {
	run := Run{Verdicts: r.verdicts, Ready: r.ready, Config: r.config, Statuses: statuses}
	ids := make([]int, 0, len(r.alarms))
	for id := range r.alarms {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		if a := r.alarms[id]; a.Withdrawn {
			run.Withdrawn++
		} else {
			run.Alarms = append(run.Alarms, a)
		}
	}
	keys := make([]string, 0, len(r.phases))
	for k := range r.phases {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		run.Phases = append(run.Phases, r.phases[k])
	}
	return run
}

// Status is the launch status once the stream ended.
func (r Run) Status() string {
	if r.Final == "" {
		return status.Starting
	}
	return r.Final
}

// Observe is what the scorer sees of a local run: the same things
// `eval --url` reads from a server's API.
func Observe(run Run) Observation {
	o := Observation{Members: map[int][]int64{}, Statuses: run.Statuses, Withdrawn: run.Withdrawn}
	for _, a := range run.Alarms {
		o.Alarms = append(o.Alarms, Alarm{Alarm: a, State: StateOpen})
	}
	for _, v := range run.Verdicts {
		if v.Alarm != 0 {
			o.Members[v.Alarm] = append(o.Members[v.Alarm], v.Seq)
		}
	}
	if run.Ready != nil {
		o.ReadySeq = run.Ready.Seq
	}
	o.Status = run.Status()
	return o
}

// Diff describes the first difference between two runs, "" if they agree.
// The statuses between batches are not compared: they depend on where the
// batches ended.
func Diff(a, b Run) string {
	for i := range a.Verdicts {
		if i >= len(b.Verdicts) {
			break
		}
		if ja, jb := jsonOf(a.Verdicts[i]), jsonOf(b.Verdicts[i]); !bytes.Equal(ja, jb) {
			return fmt.Sprintf("line %d: %s vs %s", i+1, ja, jb)
		}
	}
	if ja, jb := jsonOf(a.Alarms), jsonOf(b.Alarms); !bytes.Equal(ja, jb) {
		return fmt.Sprintf("alarms: %s vs %s", ja, jb)
	}
	if ja, jb := jsonOf(a.Ready), jsonOf(b.Ready); !bytes.Equal(ja, jb) {
		return fmt.Sprintf("ready: %s vs %s", ja, jb)
	}
	if ja, jb := jsonOf(a.Phases), jsonOf(b.Phases); !bytes.Equal(ja, jb) {
		return fmt.Sprintf("phases: %s vs %s", ja, jb)
	}
	if ja, jb := jsonOf(a.Config), jsonOf(b.Config); !bytes.Equal(ja, jb) {
		return "config differs"
	}
	if sa, sb := a.Status(), b.Status(); sa != sb {
		return fmt.Sprintf("final status: %s vs %s", sa, sb)
	}
	return ""
}

func jsonOf(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// Outcome is the launch outcome of a finished run's alarms and readiness,
// as the status machine decides it (see OutcomeOf): every fatal alarm that
// was not withdrawn counts, as after the stream's end all are settled.
func Outcome(alarms []classify.Alarm, ready *classify.Marker) string {
	var seen []Alarm
	open := 0
	for _, a := range alarms {
		if a.Withdrawn {
			continue
		}
		seen = append(seen, Alarm{Alarm: a, State: StateOpen})
		if a.Fatal {
			open++
		}
	}
	var readySeq int64
	if ready != nil {
		readySeq = ready.Seq
	}
	st := status.Of(status.Facts{Ready: ready != nil, OpenFatal: open})
	return OutcomeOf(st, readySeq, seen)
}
