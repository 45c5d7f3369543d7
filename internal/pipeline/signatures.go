package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/decode"
	"launchwatch/internal/store"
)

// Taught signatures at ingest: every batch reads the enabled signatures in
// its launch's scope (a server kind, a label, all launches) under the
// launch's lock, and the classifier state is made and restored with them,
// so a signature saved a moment ago applies to the next batch of every
// launch on every web process. Each distinct set is compiled once per
// process (sigCache).

// Classifier names the classifier that judges launches, as the launch
// records it: the build's revision, when the binary was built from a
// checkout, and a digest of the packs it embeds.
var Classifier = sync.OnceValue(func() string {
	rev := "dev"
	if bi, ok := debug.ReadBuildInfo(); ok {
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value[:min(len(s.Value), 12)]
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if dirty {
			rev += "+dirty"
		}
	}
	digest := "none"
	if packs, err := classify.Packs(); err == nil {
		b, _ := json.Marshal(packs)
		sum := sha256.Sum256(b)
		digest = hex.EncodeToString(sum[:6])
	}
	return "launchwatch " + rev + ", packs " + digest
})

// maxCachedSets bounds the compiled signature sets a process keeps.
const maxCachedSets = 64

// sigCache holds compiled signature sets by their content.
type sigCache struct {
	mu   sync.Mutex
	sets map[string]*classify.Signatures
}

func newSigCache() *sigCache { return &sigCache{sets: map[string]*classify.Signatures{}} }

// compile returns the compiled form of sigs. A signature that no longer
// compiles (saved under another classifier) is left out, never failing a
// batch.
func (c *sigCache) compile(sigs []store.Signature, log *slog.Logger) *classify.Signatures {
	if len(sigs) == 0 {
		return nil
	}
	us := make([]classify.UserSignature, len(sigs))
	for i := range sigs {
		us[i] = sigs[i].Classify()
	}
	b, _ := json.Marshal(us)
	key := string(b)
	c.mu.Lock()
	set, ok := c.sets[key]
	c.mu.Unlock()
	if ok {
		return set
	}
	set, err := classify.CompileSignatures(us)
	if err != nil {
		var valid []classify.UserSignature
		for _, u := range us {
			if err := classify.CheckSignature(u); err != nil {
				if log != nil {
					log.Warn("a taught signature does not compile: left out", slog.Int64("signature", u.ID), slog.String("error", err.Error()))
				}
				continue
			}
			valid = append(valid, u)
		}
		if set, err = classify.CompileSignatures(valid); err != nil {
			set = nil
		}
	}
	c.mu.Lock()
	if len(c.sets) >= maxCachedSets {
		clear(c.sets)
	}
	c.sets[key] = set
	c.mu.Unlock()
	return set
}

// taught is the taught signatures a batch classifies with.
type taught struct {
	set *classify.Signatures
	ids []int64 // every signature in the launch's scope, compiled or not
}

// opts are the classifier options of the batch's states.
func (t taught) opts() []classify.Option {
	if t.set == nil {
		return nil
	}
	return []classify.Option{classify.WithSignatures(t.set)}
}

// loadSignatures reads the signatures in the scope of the batch's launch
// (of server, with its labels and those of attrs).
func (b *batch) loadSignatures(ctx context.Context, server string, labels map[string]string) error {
	if b.cache == nil {
		return nil
	}
	all := map[string]string{}
	for k, v := range b.launch.Labels {
		all[k] = v
	}
	for k, v := range labels {
		all[k] = v
	}
	sigs, err := b.tx.SignaturesFor(ctx, server, all)
	if err != nil {
		return err
	}
	b.taught = taught{set: b.cache.compile(sigs, b.log)}
	for _, s := range sigs {
		b.taught.ids = append(b.taught.ids, s.ID)
	}
	return nil
}

// countHits counts the lines of fresh each taught signature matches.
func (b *batch) countHits(ctx context.Context, server string, fresh []decode.Line, at time.Time) error {
	if b.taught.set.Len() == 0 || len(fresh) == 0 {
		return nil
	}
	var h store.SignatureHits
	for i := range fresh {
		for _, id := range b.taught.set.Match(fresh[i].Text, server) {
			h.Add(id, fresh[i].Text)
		}
	}
	return b.tx.CountSignatureHits(ctx, b.launch.ID, h, at, false)
}
