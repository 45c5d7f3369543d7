package review

import (
	"context"

	"launchwatch/internal/store"
)

// SignaturesView is the read model of the Signatures page: every taught
// signature with the launch it was taught from, the launches it affected
// and its history, in four queries whatever the number of signatures.
type SignaturesView struct {
	Signatures []SignatureEntry
}

// SignatureEntry is one signature as the page shows it.
type SignatureEntry struct {
	store.Signature
	FromKey  string   // the key of the launch it was taught from, "" if none or gone
	Affected []string // the keys of the launches it matched lines of, newest first (at most AffectedShown)
	History  []store.AuditEvent
}

// AffectedShown is how many affected launches the page lists a signature.
const AffectedShown = 20

// LoadSignatures reads the Signatures page's model.
func LoadSignatures(ctx context.Context, st *store.Store) (*SignaturesView, error) {
	sigs, err := st.Signatures(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(sigs))
	subjects := make([]string, len(sigs))
	var from []int64
	for i, s := range sigs {
		ids[i], subjects[i] = s.ID, SignatureSubject(s.ID)
		if s.FromLaunchID != nil && s.FromSeq != nil {
			from = append(from, *s.FromLaunchID)
		}
	}
	keys, err := st.LaunchKeys(ctx, from)
	if err != nil {
		return nil, err
	}
	affected, err := st.SignatureLaunchesFor(ctx, ids, AffectedShown)
	if err != nil {
		return nil, err
	}
	audit, err := st.AuditForSubjects(ctx, subjects)
	if err != nil {
		return nil, err
	}
	v := &SignaturesView{Signatures: make([]SignatureEntry, len(sigs))}
	for i, s := range sigs {
		e := SignatureEntry{Signature: s, Affected: affected[s.ID], History: audit[subjects[i]]}
		if s.FromLaunchID != nil && s.FromSeq != nil {
			e.FromKey = keys[*s.FromLaunchID]
		}
		v.Signatures[i] = e
	}
	return v, nil
}
