package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"sync"
)

// HistoryHeader is the header in which the server names the history of its
// database (its cluster, timeline and database OID) on every answer.
const HistoryHeader = "Launchwatch-History"

// history is the last history the server named, and how often it changed.
type history struct {
	mu      sync.Mutex
	value   string
	changes uint64
}

func (h *history) note(v string) {
	if v == "" {
		return // an answer that did not say: nothing learned
	}
	h.mu.Lock()
	if h.value != "" && v != h.value {
		h.changes++
	}
	h.value = v
	h.mu.Unlock()
}

// History is the history of the server's database its last answer named
// ("" before one did), and how many times it changed since this client's
// first answer: a change means the server may no longer hold lines it
// acknowledged (a database restored from an older copy, a lagging standby
// promoted).
func (c *Client) History() (string, uint64) {
	c.hist.mu.Lock()
	defer c.hist.mu.Unlock()
	return c.hist.value, c.hist.changes
}

// SeqRun is a run of consecutive seqs the server holds, From through To.
type SeqRun struct {
	From, To int64
}

// ErrNoSeqRuns is returned by SeqRuns from a server too old to say which
// seqs it holds.
var ErrNoSeqRuns = errors.New("the server cannot say which lines it holds (GET /api/v1/launches/{key}/seqs): upgrade it")

// SeqRuns is every run of seqs after after that the server holds for the
// launch, in order, and its last seq: none, and 0, for a launch it does
// not know.
func (c *Client) SeqRuns(ctx context.Context, key string, after int64) ([]SeqRun, int64, error) {
	var runs []SeqRun
	var last int64
	for {
		var page struct {
			LastSeq int64      `json:"last_seq"`
			Runs    [][2]int64 `json:"runs"`
			Next    *int64     `json:"next_after"`
		}
		q := url.Values{"after": {strconv.FormatInt(after, 10)}, "limit": {"10000"}}
		err := c.do(ctx, http.MethodGet, "/api/v1/launches/"+url.PathEscape(key)+"/seqs", q, "", nil, &page)
		var ae *APIError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			// No such launch, or a server without the route: the launch
			// tells which.
			lerr := c.do(ctx, http.MethodGet, "/api/v1/launches/"+url.PathEscape(key), url.Values{"wait": {"0"}}, "", nil, nil)
			if errors.As(lerr, &ae) && ae.Status == http.StatusNotFound {
				return nil, 0, nil
			}
			if lerr != nil {
				return nil, 0, lerr
			}
			return nil, 0, ErrNoSeqRuns
		}
		if err != nil {
			return nil, 0, err
		}
		last = max(last, page.LastSeq)
		for _, r := range page.Runs {
			runs = append(runs, SeqRun{From: r[0], To: r[1]})
		}
		if page.Next == nil || len(page.Runs) == 0 {
			return runs, last, nil
		}
		after = *page.Next
	}
}

// Missing returns the seqs from through to that runs (in order, as SeqRuns
// gives them) do not hold, as runs.
func Missing(runs []SeqRun, from, to int64) []SeqRun {
	var out []SeqRun
	next := from
	for _, r := range runs {
		if r.To < next {
			continue
		}
		if r.From > to {
			break
		}
		if r.From > next {
			out = append(out, SeqRun{From: next, To: min(r.From-1, to)})
		}
		next = r.To + 1
		if next > to {
			return out
		}
	}
	if next <= to {
		out = append(out, SeqRun{From: next, To: to})
	}
	return out
}

// Count is the number of seqs in runs.
func Count(runs []SeqRun) int64 {
	var n int64
	for _, r := range runs {
		n += r.To - r.From + 1
	}
	return n
}
