package review

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"launchwatch/internal/classify"
	"launchwatch/internal/pipeline"
	"launchwatch/internal/store"
)

// Sharing taught signatures: the enabled ones export as a rule pack in the
// built-in packs' format (internal/classify/packs/*.json), with the lines
// they matched as its tests, so a team can contribute them; a pack imports
// back with the same checks as a signature taught by hand.

// ExportPack returns the enabled signatures as one rule pack. Each keeps
// the stored lines it matched that still match it as tests (a line made
// from its pattern when none does); a signature no test line matches is
// left out and named in the pack's about. A server scope is the pack's
// servers; a label scope has no pack form and is said in about.
func ExportPack(ctx context.Context, st *store.Store) (classify.Pack, error) {
	sigs, err := st.Signatures(ctx)
	if err != nil {
		return classify.Pack{}, err
	}
	slices.SortFunc(sigs, func(a, b store.Signature) int { return int(a.ID - b.ID) })
	p := classify.Pack{Family: classify.TaughtPack}
	var left []string
	for _, s := range sigs {
		if !s.Enabled {
			continue
		}
		u := s.Classify()
		u.Tests = append(slices.Clone(s.Examples), classify.ExampleLine(s.Matcher, s.Pattern))
		about := fmt.Sprintf("%s: %s (taught by %s as %s %q", s.Meaning, s.Reason, s.Author, s.Matcher, s.Pattern)
		switch s.Scope {
		case "server":
			u.Servers = []string{s.ScopeValue}
		case "label":
			about += ", for launches labelled " + s.ScopeValue
		}
		u.About = about + ")"
		g, err := u.Signature()
		if err != nil {
			left = append(left, fmt.Sprintf("signature %d (%v)", s.ID, err))
			continue
		}
		p.Signatures = append(p.Signatures, g)
	}
	res, err := classify.TestPack(p)
	if err != nil {
		return classify.Pack{}, err
	}
	kept := p.Signatures[:0]
	for _, g := range p.Signatures {
		// The stored lines it matches; the line made from its pattern (the
		// last test) only when none does.
		var tests []string
		made := len(g.Tests) - 1
		for i, ok := range res[g.ID].Tests {
			if ok && i < made && !slices.Contains(tests, g.Tests[i]) {
				tests = append(tests, g.Tests[i])
			}
		}
		if len(tests) == 0 && res[g.ID].Tests[made] {
			tests = append(tests, g.Tests[made])
		}
		if len(tests) == 0 {
			left = append(left, g.ID+" (no line it matched is stored)")
			continue
		}
		g.Tests = tests
		kept = append(kept, g)
	}
	p.Signatures = kept
	p.About = "Signatures taught in Launchwatch (GET /api/v1/signatures/pack); each one's tests are lines it matched."
	if len(left) > 0 {
		p.About += " Left out: " + strings.Join(left, "; ") + "."
	}
	return p, nil
}

// maxImport bounds the signatures one import backtests and saves.
const maxImport = 100

// ImportOptions say who imports a pack, and the scope of its signatures
// that name no server (the pack format has no label scope): all launches
// when Scope is "".
type ImportOptions struct {
	Author     string
	Admin      bool
	Scope      string
	ScopeValue string
}

// ImportPack checks a pack as the built-in loader checks packs (its tests
// must match, TestPack), makes a signature of each of its signatures (a
// ready, phase-begin or alarm role; its regex, or its one literal, as the
// pattern; its one server as the scope), checks each as a taught one
// (Validate, the author's role, the backtest's catch-all refusal) and
// saves them all in one transaction, or none.
func ImportPack(ctx context.Context, st *store.Store, pipe *pipeline.Pipeline, p classify.Pack, o ImportOptions, bo pipeline.BacktestOptions) ([]int64, error) {
	f := map[string]string{}
	switch {
	case len(p.Signatures) == 0:
		f["signatures"] = "the pack has no signature"
	case len(p.Signatures) > maxImport:
		f["signatures"] = fmt.Sprintf("a pack imports at most %d signatures at once", maxImport)
		return nil, &InvalidError{Fields: f}
	}
	if err := classify.CheckPack(p); err != nil {
		f["pack"] = strings.ReplaceAll(err.Error(), "classify: ", "")
	}
	if len(f) > 0 {
		return nil, &InvalidError{Fields: f}
	}
	drafts := make([]SignatureDraft, 0, len(p.Signatures))
	examples := make([][]string, 0, len(p.Signatures))
	for _, g := range p.Signatures {
		d, err := draftOf(g, o)
		if err != nil {
			f[g.ID] = err.Error()
			continue
		}
		if err := d.Validate(); err != nil {
			for k, v := range err.(*InvalidError).Fields {
				f[g.ID] = k + ": " + v
			}
			continue
		}
		if err := d.checkRole(nil); err != nil {
			return nil, err
		}
		pv, err := PreviewSignature(ctx, pipe, d, bo)
		if err != nil {
			return nil, err
		}
		if pv.Refused != "" {
			f[g.ID] = "pattern: " + pv.Refused
			continue
		}
		drafts = append(drafts, d)
		examples = append(examples, g.Tests)
	}
	if len(f) > 0 {
		return nil, &InvalidError{Fields: f}
	}
	var ids []int64
	err := st.WithTx(ctx, func(tx *store.Tx) error {
		ids = ids[:0]
		for i, d := range drafts {
			id, err := insertSignature(ctx, st, tx, d, examples[i], map[string]any{"imported_from": p.Family + "." + p.Signatures[i].ID})
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}

// draftOf is the taught signature a pack signature stands for.
func draftOf(g classify.Signature, o ImportOptions) (SignatureDraft, error) {
	d := SignatureDraft{Author: o.Author, Admin: o.Admin, Scope: o.Scope, ScopeValue: o.ScopeValue, Reason: g.About}
	if d.Scope == "" {
		d.Scope = "all"
	}
	if d.Reason == "" {
		d.Reason = "imported signature " + g.ID
	}
	if r := []rune(d.Reason); len(r) > 1000 {
		d.Reason = string(r[:1000])
	}
	switch {
	case g.Role == classify.RoleReady:
		d.Meaning = classify.MeaningReady
	case g.Role == classify.RolePhase && g.Action == "begin":
		d.Meaning, d.Phase = classify.MeaningPhase, g.Phase
	case g.Role == classify.RoleAlarm:
		d.Meaning, d.Kind = classify.MeaningError, string(g.Kind)
		if g.IsFatal() {
			d.Meaning = classify.MeaningFatal
		}
	default:
		return d, fmt.Errorf("a taught signature means ready, fatal, error or the beginning of a phase, not role %q", g.Role)
	}
	switch len(g.Servers) {
	case 0:
	case 1:
		d.Scope, d.ScopeValue = "server", g.Servers[0]
	default:
		return d, fmt.Errorf("a taught signature is for all launches, one server or one label, not %d servers", len(g.Servers))
	}
	if len(g.NotServers) > 0 || g.Unless != "" {
		return d, fmt.Errorf("not_servers and unless have no taught form")
	}
	switch {
	case g.Regex != "":
		d.Matcher, d.Pattern = classify.MatchRegex, g.Regex
	case len(g.Any) == 1:
		d.Matcher, d.Pattern = classify.MatchSubstring, g.Any[0]
	default:
		quoted := make([]string, len(g.Any))
		for i, l := range g.Any {
			quoted[i] = regexp.QuoteMeta(l)
		}
		d.Matcher, d.Pattern = classify.MatchRegex, "(?i)(?:"+strings.Join(quoted, "|")+")"
	}
	return d, nil
}
