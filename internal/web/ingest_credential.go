package web

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"launchwatch/internal/decode"
)

// One credential must not take every ingest body slot: a token whose
// shipper (or whoever stole it) opens hundreds of slow bodies would leave
// every other shipper a 429 while the bodies trickle in. So each credential
// (an API token, a person) may read at most a share of the body slots at
// once; past it, its next body is 429 at once, before a byte of it is read,
// and the slots it does not hold stay for the others. The minimum rate of
// ingest_body.go bounds how long it holds those.

// defaultIngestBodiesPerCredential is the share of the body slots one
// credential may hold, unless configured: a quarter, so four busy
// credentials at most fill them.
func defaultIngestBodiesPerCredential(bodySlots int) int { return max(1, bodySlots/4) }

// credentialSlots counts the ingest bodies each credential is sending.
type credentialSlots struct {
	limit int
	mu    sync.Mutex
	held  map[string]int
}

func newCredentialSlots(limit int) *credentialSlots {
	return &credentialSlots{limit: limit, held: map[string]int{}}
}

// take counts one more body of credential key and returns its release, or
// an error (429) when the credential holds its limit already.
func (s *credentialSlots) take(key string) (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[key] >= s.limit {
		return nil, &decode.InputError{Status: http.StatusTooManyRequests, Message: fmt.Sprintf(
			"this credential is sending %d ingest bodies at once already, the most one may: retry once one is done", s.limit)}
	}
	s.held[key]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.held[key]--; s.held[key] <= 0 {
				delete(s.held, key)
			}
		})
	}, nil
}

// credentialKey names who a request's body slot counts against: its API
// token, or its person; a request with neither (there is none on the
// ingest routes, which need a credential) counts as one anonymous sender.
func credentialKey(p principal) string {
	switch {
	case p.tokenID != 0:
		return "token:" + strconv.FormatInt(p.tokenID, 10)
	case p.userID != 0:
		return "user:" + strconv.FormatInt(p.userID, 10)
	}
	return "name:" + p.name
}
