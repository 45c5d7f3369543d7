package classify

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"
)

//go:embed packs/*.json
var packFS embed.FS

// Pack is one rule pack: the signatures of one server family or layer
// (python, pytorch, nccl, signals, sglang, vllm, tgi, trtllm, ollama).
type Pack struct {
	Family     string      `json:"family"`
	About      string      `json:"about,omitempty"`
	Signatures []Signature `json:"signatures"`
}

// Signature roles.
const (
	RoleAlarm    = "alarm"    // starts an error event, or joins the one open on that source
	RoleFollow   = "follow"   // joins an event that ended just before; an event of its own otherwise
	RoleRetry    = "retry"    // the line after a traceback says it is retried: withdraw the event
	RoleShutdown = "shutdown" // an operator's deliberate stop: later errors are teardown, not alarms
	RoleReady    = "ready"    // the server accepts requests
	RolePhase    = "phase"    // a startup phase begins, advances or ends
	RoleConfig   = "config"   // a configuration dump; parsed, never alarmed on
	RoleDetect   = "detect"   // the line proves the server family
	RoleServing  = "serving"  // the server answered a request: an error before it was survived
	RoleHint     = "hint"     // advice printed with an error ("consider passing CUDA_LAUNCH_BLOCKING=1"): joins the event before it, never starts one
	// RoleTransient: a traceback frame inside a network client library, or
	// an exception that names a network failure (a timeout, a refused or
	// reset connection). A traceback made only of those may well be retried:
	// it waits for the next line, or the stream's end, before it counts
	// (settle.go).
	RoleTransient = "transient"
	// RolePayload: the server's request logging (SGLang's --log-requests
	// "Receive: obj=...", vLLM's "Received request ...: prompt: ..."). What
	// follows is a user's prompt or the model's output: data that may quote
	// any error text, never evidence of one.
	RolePayload = "payload"
	// RoleSpawn: a supervisor or proxy starts a child process
	// (llama-swap's "Executing start command: ...", supervisord's
	// "spawned: 'NAME' with pid N"). A failure printed after it may be the
	// child's, and the parent reports that on the next lines: a fatal
	// event waits while it is the last thing read (settle.go).
	RoleSpawn = "spawn"
	// RoleRestart: a supervisor says it starts the program again after it
	// died (systemd's "Scheduled restart job, restart counter is at N", a
	// wrapper's "retry 2/5"): a readiness after it is the new attempt's,
	// which the earlier attempt's death does not undo (readyAfterErrors).
	RoleRestart = "restart"
)

// Roles of level evidence (grammar_level.go).
const (
	RoleBenign    = "benign"    // an ERROR/CRITICAL/FATAL line whose wording is harmless: no level evidence
	RoleTerminate = "terminate" // the process is ending: an ERROR run just before it is a fatal event
)

// Signature is one pattern of a rule pack. A line matches when it contains
// one of the Any literals (ASCII case-insensitive), its body matches Regex
// (when set) and not Unless (when set), its level is allowed and the launch's
// server family is allowed.
type Signature struct {
	ID       string    `json:"id"`
	About    string    `json:"about,omitempty"`
	Role     string    `json:"role"`
	Kind     AlarmKind `json:"kind,omitempty"`
	Fatal    *bool     `json:"fatal,omitempty"`    // alarm and follow roles; default true
	Priority int       `json:"priority,omitempty"` // headline priority: 0 consequence, 1 intro line, 2 exception line, 3 root cause
	Any      []string  `json:"any"`
	Regex    string    `json:"regex,omitempty"`
	Unless   string    `json:"unless,omitempty"`
	// Levels restricts the line's level ("" = no level). Alarm and follow
	// signatures default to "", ERROR, CRITICAL and FATAL.
	Levels     []string `json:"levels,omitempty"`
	Servers    []string `json:"servers,omitempty"`     // only for these families
	NotServers []string `json:"not_servers,omitempty"` // never for these families
	Family     string   `json:"family,omitempty"`      // detect/ready: the family the line proves
	Phase      string   `json:"phase,omitempty"`
	Action     string   `json:"action,omitempty"` // begin, end, progress
	// Consequence marks an alarm signature whose line reports another
	// process's failure (a launcher about its child, "See root cause
	// above"): its alarm links to the root-cause alarm before it (Alarm.Cause).
	Consequence bool `json:"consequence,omitempty"`
	// Survivor marks an alarm signature whose line is a parent server's
	// report that a child process it started has died while the parent
	// keeps serving (Ollama's scheduler about a model runner): the fatal
	// events before it were the child's, not the server's (verdict.go).
	// On a serving signature it says the same without an alarm of its own:
	// the parent answers the request its child failed (Ollama's "post
	// predict" error) and lives on.
	Survivor bool `json:"survivor,omitempty"`
	// Launcher marks an alarm signature whose line is a job launcher's
	// report that one of its tasks died (srun's "task 0: Aborted"): an
	// event of its own after the task's last words, never their last line
	// (isSignalConsequence), as a supervisor's report is its own block.
	Launcher bool `json:"launcher,omitempty"`
	// Command marks a payload signature whose line is a command a script
	// echoes before running it (bash -x): what follows is that command's
	// output, so the event the line before was part of has ended.
	Command bool `json:"command,omitempty"`
	// Dooms marks a follow or alarm signature whose line is a server's
	// last words naming the failures it reported before as the reason it
	// exits (Triton's "error: creating server: ... failed to load all
	// models"): before readiness, the non-fatal alarms before it (a model
	// that failed to load, which the server may outlive) become fatal.
	Dooms bool `json:"dooms,omitempty"`
	// Unready marks an alarm signature whose line says the server never
	// began to serve (uvicorn's failure to bind its socket): a readiness
	// announced just before it (uvicorn logs "Application startup
	// complete." before it binds) is taken back (State.takeBackReady).
	Unready bool `json:"unready,omitempty"`
	// Summary marks a follow signature whose line sums up a job after it
	// ended (Slurm's sacct rows): it joins the event just before it, is
	// the alarm when no fatal one was shown, and adds nothing (no alarm of
	// its own) when one was, however many lines came between.
	Summary bool `json:"summary,omitempty"`
	// BeforeBind marks a ready signature whose line a server prints before
	// it binds its port unless it was handed a bound socket (uvicorn's
	// "Application startup complete."; its "Uvicorn running on ..." follows
	// the bind): it is readiness at once only after an endpoint was
	// announced as bound, else the bind's own announcement, or lines that
	// follow it without a failure, make the launch ready (State.awaitBind).
	BeforeBind bool     `json:"before_bind,omitempty"`
	Tests      []string `json:"tests"`
	NotTests   []string `json:"not_tests,omitempty"`

	// Weight is how much a detect line adds to its family's evidence
	// (default 2): 1 for a bare product name that other servers' logs may
	// mention, 3 for wording only that server prints (family.go).
	Weight int `json:"weight,omitempty"`

	re     *leadRegexp
	unless *leadRegexp
	pack   string
}

// IsFatal reports whether an event started by the signature brings the server down.
func (g *Signature) IsFatal() bool { return g.Fatal == nil || *g.Fatal }

var defaultAlarmLevels = []string{"", "ERROR", "CRITICAL", "FATAL"}

// builtin literals the event grammar needs besides the signatures.
const (
	litTraceback = iota
	litChained
	litCause
	litLoggingError
	litWhat
	litFrame
	litRaisedFrom
	litCR
	litItS
	litSIt
	litBar
	litIgnored
	numBuiltins
)

var builtinLiterals = [numBuiltins]string{
	litTraceback:    "Traceback (most recent call last)",
	litChained:      "During handling of the above exception",
	litCause:        "The above exception was the direct cause",
	litLoggingError: "--- Logging error ---",
	litWhat:         "what():",
	litFrame:        "frame #",
	litRaisedFrom:   "Exception raised from",
	litCR:           "\r",
	litItS:          "it/s]",
	litSIt:          "s/it]",
	litBar:          "%|",
	litIgnored:      "Exception ignored in",
}

// ruleSet is the compiled form of all packs.
type ruleSet struct {
	sigs    []*Signature
	m       *matcher
	patSigs [][]int32 // literal -> signatures using it; builtins have none
}

var (
	defaultOnce sync.Once
	defaultRS   *ruleSet
	defaultErr  error
)

// Packs returns the embedded rule packs.
func Packs() ([]Pack, error) {
	names, err := fs.Glob(packFS, "packs/*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Pack
	for _, n := range names {
		b, err := packFS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var p Pack
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("classify: pack %s: %w", n, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func defaultRules() *ruleSet {
	defaultOnce.Do(func() {
		packs, err := Packs()
		if err != nil {
			defaultErr = err
			return
		}
		defaultRS, defaultErr = compilePacks(packs)
	})
	if defaultErr != nil {
		// The packs are embedded and checked by tests; a broken pack is a build bug.
		panic(defaultErr)
	}
	return defaultRS
}

var validRoles = []string{RoleAlarm, RoleFollow, RoleRetry, RoleShutdown, RoleReady, RolePhase, RoleConfig, RoleDetect, RoleServing,
	RoleHint, RoleBenign, RoleTerminate, RoleTransient, RolePayload, RoleSpawn, RoleRestart}

func compilePacks(packs []Pack) (*ruleSet, error) {
	rs := &ruleSet{}
	lits := append([]string(nil), builtinLiterals[:]...)
	lits = append(lits, endpointLiterals...) // numBuiltins.. : hits.endpoint
	litIdx := map[string]int32{}
	for i, l := range lits {
		litIdx[strings.ToLower(l)] = int32(i)
	}
	rs.patSigs = make([][]int32, len(lits))
	seen := map[string]bool{}
	for pi := range packs {
		for si := range packs[pi].Signatures {
			g := &packs[pi].Signatures[si]
			g.pack = packs[pi].Family
			if g.ID == "" || seen[g.ID] {
				return nil, fmt.Errorf("classify: pack %s: missing or duplicate signature id %q", g.pack, g.ID)
			}
			seen[g.ID] = true
			if !slices.Contains(validRoles, g.Role) {
				return nil, fmt.Errorf("classify: signature %s: unknown role %q", g.ID, g.Role)
			}
			if len(g.Any) == 0 || slices.Contains(g.Any, "") {
				return nil, fmt.Errorf("classify: signature %s: needs at least one literal in any, none empty", g.ID)
			}
			if len(g.Tests) == 0 {
				return nil, fmt.Errorf("classify: signature %s: needs at least one test line", g.ID)
			}
			if (g.Role == RoleAlarm || g.Role == RoleFollow) && g.Kind == "" {
				return nil, fmt.Errorf("classify: signature %s: alarm needs a kind", g.ID)
			}
			if g.Role == RolePhase && (g.Phase == "" || (g.Action != "begin" && g.Action != "end" && g.Action != "progress")) {
				return nil, fmt.Errorf("classify: signature %s: phase needs phase and action begin|end|progress", g.ID)
			}
			if (g.Role == RoleAlarm || g.Role == RoleFollow) && g.Levels == nil {
				g.Levels = defaultAlarmLevels
			}
			var err error
			if g.Regex != "" {
				if g.re, err = compileLead(g.Regex); err != nil {
					return nil, fmt.Errorf("classify: signature %s: %w", g.ID, err)
				}
			}
			if g.Unless != "" {
				if g.unless, err = compileLead(g.Unless); err != nil {
					return nil, fmt.Errorf("classify: signature %s: %w", g.ID, err)
				}
			}
			idx := int32(len(rs.sigs))
			rs.sigs = append(rs.sigs, g)
			for _, l := range g.Any {
				key := strings.ToLower(l)
				li, ok := litIdx[key]
				if !ok {
					li = int32(len(lits))
					lits = append(lits, l)
					litIdx[key] = li
					rs.patSigs = append(rs.patSigs, nil)
				}
				if !slices.Contains(rs.patSigs[li], idx) {
					rs.patSigs[li] = append(rs.patSigs[li], idx)
				}
			}
		}
	}
	var sample []string
	for _, g := range rs.sigs {
		sample = append(sample, g.Tests...)
		sample = append(sample, g.NotTests...)
	}
	rs.m = newMatcher(lits, sample...)
	return rs, nil
}

// hits is what one scan of a line found.
type hits struct {
	builtin [numBuiltins]bool
	// endpoint: one of endpointLiterals occurred, so the line may announce
	// an endpoint (endpoint.go).
	endpoint bool
	sigs     []int32 // candidate signatures (literal found), ascending
}

// scan finds the literals in text and lists the candidate signatures.
func (rs *ruleSet) scan(text string, h *hits) {
	h.builtin = [numBuiltins]bool{}
	h.endpoint = false
	h.sigs = h.sigs[:0]
	rs.m.scan(text, func(p int32) {
		if p < numBuiltins {
			h.builtin[p] = true
			return
		}
		if p < numBuiltins+int32(len(endpointLiterals)) {
			h.endpoint = true // a signature may share the literal: go on
		}
		for _, si := range rs.patSigs[p] {
			if !slices.Contains(h.sigs, si) {
				h.sigs = append(h.sigs, si)
			}
		}
	})
	if len(h.sigs) > 1 {
		slices.Sort(h.sigs)
	}
}

// confirm checks the non-literal conditions of a candidate signature.
func (g *Signature) confirm(p *Prefix, server string) bool {
	if g.Levels != nil && !slices.Contains(g.Levels, p.Level) {
		return false
	}
	if len(g.Servers) > 0 && !slices.Contains(g.Servers, server) {
		return false
	}
	if len(g.NotServers) > 0 && slices.Contains(g.NotServers, server) {
		return false
	}
	body := p.Body
	if len(body) > maxRegexInput {
		body = body[:maxRegexInput]
	}
	if g.re != nil && !g.re.MatchString(body) {
		return false
	}
	if g.unless != nil && g.unless.MatchString(body) {
		return false
	}
	return true
}

// longLine is the length from which a line is checked for a configuration
// dump before anything else.
const longLine = 2048

// configAt finds a config signature whose literal occurs in head, and the
// offset just after that literal.
func (rs *ruleSet) configAt(head string) (*Signature, int) {
	for _, g := range rs.sigs {
		if g.Role != RoleConfig {
			continue
		}
		for _, lit := range g.Any {
			if i := strings.Index(head, lit); i >= 0 {
				return g, i + len(lit)
			}
		}
	}
	return nil, -1
}

// literalEnd is the offset just after the first of g's literals found in
// body (as written, then ignoring ASCII case), -1 if none.
func literalEnd(body string, g *Signature) int {
	for _, lit := range g.Any {
		if i := strings.Index(body, lit); i >= 0 {
			return i + len(lit)
		}
	}
	for _, lit := range g.Any {
		if i := indexFold(body, lit); i >= 0 {
			return i + len(lit)
		}
	}
	return -1
}

// indexFold is strings.Index ignoring ASCII case.
func indexFold(s, sub string) int {
	n := len(sub)
	if n == 0 {
		return 0
	}
	for i := 0; i+n <= len(s); i++ {
		if lower(s[i]) == lower(sub[0]) && strings.EqualFold(s[i:i+n], sub) {
			return i
		}
	}
	return -1
}

// maxRegexInput bounds the bytes of a line a signature regexp looks at.
const maxRegexInput = 8 << 10

// MatchSignature reports the IDs of the signatures that match one line, as
// the classifier would see it for a launch of the given server family. It is
// meant for tests and for explaining a verdict.
func MatchSignature(line, server string) []string {
	rs := defaultRules()
	p := ParsePrefix(line, 0)
	var h hits
	rs.scan(stripForScan(line), &h)
	var ids []string
	for _, si := range h.sigs {
		if g := rs.sigs[si]; g.confirm(&p, g.scopeFor(server)) {
			ids = append(ids, g.ID)
		}
	}
	return ids
}

func stripForScan(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 {
		return stripANSI(s)
	}
	return s
}
