package classify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Taught signatures: what a team teaches the classifier about its own
// servers ("this line means ready", "this is a fatal error", "this is an
// error the server survives", "this starts phase X"). A taught signature is
// data like a pack's: it compiles to the same Signature (a literal for the
// prefilter, an RE2 on the body), is compiled with the built-in packs into
// one ruleSet, and is consulted by the same code after the built-in
// signatures of the line (State.match visits signatures in pack order and
// the taught ones come last), so it keeps every guarantee of the packs: the
// same verdicts whatever the batch boundaries, in every envelope.

// Meanings of a taught signature.
const (
	MeaningReady = "ready" // the server accepts requests
	MeaningFatal = "fatal" // an error that brings the server down
	MeaningError = "error" // an error the server survives (one failed request)
	MeaningPhase = "phase" // a startup phase begins
)

// TaughtPack is the family of the pack taught signatures compile into.
const TaughtPack = "taught"

// allLevels is every level the prefix parser reports: a taught line
// matches whatever level it was logged at.
var allLevels = []string{"", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL", "FATAL"}

// minLiteral is the shortest literal a taught signature is prefiltered on.
const minLiteral = 3

// UserSignature is a taught signature as a team wrote it. Its scope (all
// launches, a server kind, a label) is the caller's: it passes only the
// signatures that apply to the launch.
type UserSignature struct {
	ID      int64
	Meaning string    // ready | fatal | error | phase
	Phase   string    // with phase: the phase it begins (weights, kv_cache ...)
	Kind    AlarmKind // with fatal and error: the alarm's kind; "" is other
	Matcher string    // template | substring | regex, as suppression rules
	Pattern string
	// Servers, when set, restricts the signature to those server
	// families, as a pack signature's servers (the export's form of a
	// server scope; the classifier's launches are filtered by the caller).
	Servers []string
	About   string
	Tests   []string // lines it must match (the export's tests); none: a line made from the pattern
}

// SignatureID is the id a taught signature has among the pack signatures.
func SignatureID(id int64) string {
	if id == 0 {
		return TaughtPack + ".draft"
	}
	return TaughtPack + "." + strconv.FormatInt(id, 10)
}

// PhaseName is what a phase may be called: init, weights, kv_cache ...
var PhaseName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)

var alarmKinds = []AlarmKind{AlarmOOM, AlarmNCCL, AlarmCUDA, AlarmTraceback, AlarmSignal, AlarmCompile, AlarmAssert, AlarmOther}

// Signature returns u in the form of a pack signature.
func (u UserSignature) Signature() (Signature, error) {
	g := Signature{ID: SignatureID(u.ID), About: u.About, Servers: u.Servers}
	switch u.Meaning {
	case MeaningReady:
		g.Role = RoleReady
	case MeaningPhase:
		if !PhaseName.MatchString(u.Phase) {
			return g, errors.New("classify: name the phase it begins (lower case, such as weights or kv_cache)")
		}
		g.Role, g.Phase, g.Action = RolePhase, u.Phase, "begin"
	case MeaningFatal, MeaningError:
		g.Role, g.Kind, g.Priority, g.Levels = RoleAlarm, u.Kind, 3, allLevels
		if g.Kind == "" {
			g.Kind = AlarmOther
		}
		if !slices.Contains(alarmKinds, g.Kind) {
			return g, fmt.Errorf("classify: unknown alarm kind %q", u.Kind)
		}
		fatal := u.Meaning == MeaningFatal
		g.Fatal = &fatal
	default:
		return g, fmt.Errorf("classify: unknown meaning %q (want ready, fatal, error or phase)", u.Meaning)
	}
	p := strings.TrimSpace(u.Pattern)
	if p == "" {
		return g, errors.New("classify: the pattern is empty")
	}
	var err error
	switch u.Matcher {
	case MatchTemplate:
		g.Regex = TemplateRegex(p)
	case MatchSubstring:
		if len(p) < minLiteral {
			return g, fmt.Errorf("classify: a substring needs at least %d characters", minLiteral)
		}
		g.Any = []string{p}
	case MatchRegex:
		if _, err := regexp.Compile(p); err != nil {
			return g, fmt.Errorf("classify: regex: %w", err)
		}
		g.Regex = p
	default:
		return g, fmt.Errorf("classify: unknown matcher %q (want template, substring or regex)", u.Matcher)
	}
	if g.Regex != "" {
		if g.Any, err = RequiredLiterals(g.Regex); err != nil {
			return g, err
		}
	}
	g.Tests = u.Tests
	if len(g.Tests) == 0 {
		g.Tests = []string{ExampleLine(u.Matcher, p)}
	}
	return g, nil
}

// ExampleLine is a line the pattern matches, for a signature that matched no
// stored line yet (a pack signature needs a test line): the substring
// itself, the template with sample values, the regex's literals.
func ExampleLine(matcher, p string) string {
	switch matcher {
	case MatchTemplate:
		r := strings.NewReplacer("<str>", "'x'", "<path>", "/x", "<hex>", "0x1f", "<size>", "1 GiB",
			"<time>", "10:00:00", "<rank>", "rank 0", "<num>", "1")
		return r.Replace(p)
	case MatchRegex:
		lits, _ := RequiredLiterals(p)
		if len(lits) > 0 {
			return lits[0]
		}
	}
	return p
}

// maskRegex is what each mask of Template stands for in a line.
var maskRegex = map[string]string{
	"<num>":  `\d+(?:[.,:-]\d+)*`,
	"<time>": `\d+(?:[.,:-]\d+)*`,
	"<size>": `\d+(?:[.,:-]\d+)* ?[A-Za-z]+`,
	"<hex>":  `[\w.,:-]+`,
	"<rank>": `[A-Za-z_]*[ =:]?\d+`,
	"<str>":  "(?:'[^']*'|\"[^\"]*\"|`[^`]*`)",
	"<path>": `/[\w.~+@/-]*`,
}

// TemplateRegex is an RE2 on a line's body that matches the lines whose
// Template is t (and a few more: a mask stands for any text of its kind).
func TemplateRegex(t string) string {
	var b strings.Builder
	b.WriteString(`^\s*`)
	lit := 0
	for i := 0; i < len(t); i++ {
		if t[i] != '<' {
			continue
		}
		j := strings.IndexByte(t[i:], '>')
		if j < 0 {
			break
		}
		re, ok := maskRegex[t[i:i+j+1]]
		if !ok {
			continue
		}
		b.WriteString(regexp.QuoteMeta(t[lit:i]))
		b.WriteString(re)
		i += j
		lit = i + 1
	}
	b.WriteString(regexp.QuoteMeta(t[lit:]))
	b.WriteString(`\s*$`)
	return b.String()
}

// RequiredLiterals finds literals one of which every match of the RE2
// expr contains, the longest such set, for the prefilter (a pack
// signature's "any"). A pattern without one (".*", "\d+") is refused.
func RequiredLiterals(expr string) ([]string, error) {
	t, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("classify: regex: %w", err)
	}
	lits := required(t.Simplify())
	if len(lits) == 0 || shortest(lits) < minLiteral {
		return nil, fmt.Errorf("classify: the pattern needs a fixed text of at least %d characters that every matching line contains", minLiteral)
	}
	return lits, nil
}

// required is the best set of literals one of which every match of t
// contains, nil if there is none.
func required(t *syntax.Regexp) []string {
	switch t.Op {
	case syntax.OpLiteral:
		s := string(t.Rune)
		if t.Flags&syntax.FoldCase != 0 {
			if !isASCII(s) {
				return nil // the prefilter folds ASCII only
			}
			s = strings.ToLower(s)
		}
		return []string{s}
	case syntax.OpCapture, syntax.OpPlus:
		return required(t.Sub[0])
	case syntax.OpRepeat:
		if t.Min >= 1 {
			return required(t.Sub[0])
		}
	case syntax.OpConcat:
		var best []string
		for _, sub := range t.Sub {
			if l := required(sub); len(l) > 0 && (best == nil || shortest(l) > shortest(best)) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range t.Sub {
			l := required(sub)
			if len(l) == 0 {
				return nil
			}
			all = append(all, l...)
		}
		slices.Sort(all)
		return slices.Compact(all)
	}
	return nil
}

func shortest(lits []string) int {
	n := -1
	for _, l := range lits {
		if c := utf8.RuneCountInString(l); n < 0 || c < n {
			n = c
		}
	}
	return n
}

// Signatures is a compiled set of taught signatures: with the built-in
// packs for the classifier (WithSignatures), and alone to tell which lines
// each one matches (Match).
type Signatures struct {
	all *ruleSet // the packs, then the taught signatures
	own *ruleSet // the taught signatures alone
	ids []int64  // by index in own.sigs
}

// CompileSignatures compiles taught signatures, in order, after the
// built-in packs. An invalid one fails the whole set: callers validate each
// when it is saved (CheckSignature).
func CompileSignatures(us []UserSignature) (*Signatures, error) {
	own := Pack{Family: TaughtPack, About: "signatures taught by the team"}
	ids := make([]int64, 0, len(us))
	for _, u := range us {
		g, err := u.Signature()
		if err != nil {
			return nil, fmt.Errorf("classify: signature %d: %w", u.ID, err)
		}
		own.Signatures = append(own.Signatures, g)
		ids = append(ids, u.ID)
	}
	packs, err := Packs()
	if err != nil {
		return nil, err
	}
	all, err := compilePacks(append(packs, clonePack(own)))
	if err != nil {
		return nil, err
	}
	alone, err := compilePacks([]Pack{own})
	if err != nil {
		return nil, err
	}
	return &Signatures{all: all, own: alone, ids: ids}, nil
}

// clonePack copies p's signatures, which compilePacks fills in.
func clonePack(p Pack) Pack {
	p.Signatures = slices.Clone(p.Signatures)
	return p
}

// CheckSignature reports why u cannot be a signature (nil if it can): it
// must compile with the built-in packs.
func CheckSignature(u UserSignature) error {
	_, err := CompileSignatures([]UserSignature{u})
	return err
}

// IDs are the ids of the signatures, in order.
func (s *Signatures) IDs() []int64 {
	if s == nil {
		return nil
	}
	return slices.Clone(s.ids)
}

// Len is how many taught signatures s holds.
func (s *Signatures) Len() int {
	if s == nil {
		return 0
	}
	return len(s.ids)
}

// Match returns the ids of the taught signatures that match a line as the
// classifier reads it (its envelope and prefix peeled) for a launch of
// the given server family.
func (s *Signatures) Match(line, server string) []int64 {
	if s == nil || len(s.ids) == 0 {
		return nil
	}
	p := ParsePrefix(line, 0)
	var h hits
	s.own.scan(stripForScan(line), &h)
	var out []int64
	for _, si := range h.sigs {
		if g := s.own.sigs[si]; g.confirm(&p, g.scopeFor(server)) {
			out = append(out, s.ids[si])
		}
	}
	return out
}

// Option configures a State at New or Restore.
type Option func(*State)

// WithSignatures makes the State consult the taught signatures s after the
// built-in packs; nil or an empty set changes nothing. A state saved with
// MarshalBinary keeps no signature: Restore it with the same option.
func WithSignatures(s *Signatures) Option {
	return func(st *State) {
		if s != nil && len(s.ids) > 0 {
			st.rs = s.all
		}
	}
}

// ParsePack reads one rule pack as the embedded ones are read: an unknown
// field is an error.
func ParsePack(data []byte) (Pack, error) {
	var p Pack
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("classify: pack: %w", err)
	}
	if dec.More() {
		return p, errors.New("classify: pack: more than one JSON value")
	}
	return p, nil
}

// PackTest says which test lines of a signature match it (Tests) and
// which of its not_tests lines do (NotTests, which must not).
type PackTest struct {
	Tests    []bool
	NotTests []bool
}

// TestPack compiles p after the built-in packs, as the embedded packs are
// compiled (a unique id per signature, a known role, a literal, a test
// line), and matches each of its signatures against its own test and
// not_tests lines (TestPackSignatures), by signature id.
func TestPack(p Pack) (map[string]PackTest, error) {
	packs, err := Packs()
	if err != nil {
		return nil, err
	}
	first := 0
	for _, b := range packs {
		first += len(b.Signatures)
	}
	rs, err := compilePacks(append(packs, clonePack(p)))
	if err != nil {
		return nil, err
	}
	out := map[string]PackTest{}
	for i := first; i < len(rs.sigs); i++ {
		g := rs.sigs[i]
		server := ""
		if len(g.Servers) > 0 {
			server = g.Servers[0]
		}
		var t PackTest
		for _, line := range g.Tests {
			t.Tests = append(t.Tests, rs.matches(int32(i), line, server))
		}
		for _, line := range g.NotTests {
			t.NotTests = append(t.NotTests, rs.matches(int32(i), line, server))
		}
		out[g.ID] = t
	}
	return out, nil
}

// CheckPack checks a pack as the embedded ones are checked (TestPack):
// every test line must match its signature and no not_tests line.
func CheckPack(p Pack) error {
	res, err := TestPack(p)
	if err != nil {
		return err
	}
	var errs []error
	for _, g := range p.Signatures {
		t := res[g.ID]
		for i, ok := range t.Tests {
			if !ok {
				errs = append(errs, fmt.Errorf("classify: signature %s: test line does not match: %q", g.ID, g.Tests[i]))
			}
		}
		for i, bad := range t.NotTests {
			if bad {
				errs = append(errs, fmt.Errorf("classify: signature %s: not_test line matches: %q", g.ID, g.NotTests[i]))
			}
		}
	}
	return errors.Join(errs...)
}

// matches reports whether signature si of rs matches line, as
// MatchSignature finds it.
func (rs *ruleSet) matches(si int32, line, server string) bool {
	p := ParsePrefix(line, 0)
	var h hits
	rs.scan(stripForScan(line), &h)
	g := rs.sigs[si]
	return slices.Contains(h.sigs, si) && g.confirm(&p, g.scopeFor(server))
}
