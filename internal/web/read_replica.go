package web

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/store"
)

// Reads from a replica (--database-read-url). The page reads — the launch
// list, a launch (page and API), its log and its search, its
// configuration and alarm context, the comparison — of people and read
// tokens are served by the replica, which may lag behind the primary;
// everything else (writes, sign-in, ingest, a shipper's status reads, the
// live feeds, /seqs, the review queue...) by the primary.
//
// Read-your-writes: a principal's write (any state-changing request but
// ingest: a decision, a note, a rule, a pin) records where the primary's
// log ended after it (store.WrittenLSN). Until the replica has replayed
// that far, that principal's page reads go to the primary; everyone
// else's stay on the replica. The position is kept in this process by
// principal, and travels with the answer so that another web process
// honours it too: in a cookie for a browser (lw_read_after), and in the
// Launchwatch-Read-After header for an API client to send back. It is
// forgotten once the replica has replayed it, and after readAfterFor at
// the latest (a replica that far behind is broken, not lagging).
//
// A replica that fails (down, restarting) is left alone for
// replicaRestFor: the request that met the failure is served again by the
// primary, and so are the page reads meanwhile.

const (
	readAfterCookie = "lw_read_after"
	// ReadAfterHeader carries a write's log position on its answer, and
	// a reader's on a request (read-your-writes on any web process).
	ReadAfterHeader = "Launchwatch-Read-After"
	readAfterFor    = 10 * time.Minute
	replicaRestFor  = 5 * time.Second
	replicaAskFor   = time.Second // bound on asking the replica how far it is
	readAfterMax    = 10_000      // principals remembered at most
)

// readAfter is read-your-writes' memory in this process.
type readAfter struct {
	mu    sync.Mutex
	wrote map[string]readAfterEntry
	// restUntil is when the replica is tried again after a failure (unix ns).
	restUntil atomic.Int64
}

type readAfterEntry struct {
	lsn store.LSN
	at  time.Time
}

// principalRef names a principal for read-your-writes: a person, or a
// token; "" for no one.
func principalRef(p principal) string {
	switch {
	case p.userID != 0:
		return "u" + strconv.FormatInt(p.userID, 10)
	case p.tokenID != 0:
		return "t" + strconv.FormatInt(p.tokenID, 10)
	}
	return ""
}

func (ra *readAfter) note(who string, lsn store.LSN, now time.Time) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	if ra.wrote == nil || len(ra.wrote) >= readAfterMax {
		ra.wrote = map[string]readAfterEntry{}
	}
	if e := ra.wrote[who]; e.lsn < lsn {
		ra.wrote[who] = readAfterEntry{lsn: lsn, at: now}
	}
}

func (ra *readAfter) get(who string, now time.Time) store.LSN {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	e, ok := ra.wrote[who]
	if ok && now.Sub(e.at) > readAfterFor {
		delete(ra.wrote, who)
		return 0
	}
	return e.lsn
}

// forget drops who's position once the replica replayed it.
func (ra *readAfter) forget(who string, replayed store.LSN) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	if e, ok := ra.wrote[who]; ok && e.lsn <= replayed {
		delete(ra.wrote, who)
	}
}

// noteWrites records, on the answer to every successful state-changing
// request but ingest, where the primary's log ended: for the writer's next
// page reads (readYourWrites). It runs only with a replica.
func (h *handler) noteWrites(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		switch c.Request().Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		p := principalOf(c)
		who := principalRef(p)
		if !h.store.HasReplica() || who == "" || h.policies[c.Request().Method+" "+c.Path()].need <= auth.Ingest {
			return next(c)
		}
		res := c.Response()
		res.Before(func() {
			if res.Status >= 400 {
				return
			}
			ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), replicaAskFor)
			defer cancel()
			lsn, err := h.store.WrittenLSN(ctx)
			if err != nil {
				// The write is done; its writer may read the replica's
				// older copy for a moment.
				h.log.Warn("read-your-writes: primary's log position", slog.String("error", err.Error()))
				return
			}
			now := h.now()
			h.readAfter.note(who, lsn, now)
			res.Header().Set(ReadAfterHeader, lsn.String())
			if p.ambient {
				http.SetCookie(res, &http.Cookie{Name: readAfterCookie, Value: lsn.String(), Path: "/",
					MaxAge: int(readAfterFor / time.Second), HttpOnly: true, SameSite: http.SameSiteLaxMode,
					Secure: c.Scheme() == "https"})
			}
		})
		return next(c)
	}
}

// pageReads serves a page read from the replica (one connection of it for
// the request), unless the reader wrote something that standby has not
// replayed yet, or the replica failed lately. A read the replica fails is
// served again by the primary.
func (h *handler) pageReads(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !h.store.HasReplica() || time.Now().UnixNano() < h.readAfter.restUntil.Load() {
			return next(c)
		}
		p := principalOf(c)
		if p.level == auth.Ingest {
			// A shipper's token reads the status of what it just shipped.
			return next(c)
		}
		req := c.Request()
		ctx, cancel := context.WithTimeout(req.Context(), replicaAskFor)
		defer cancel()
		reads, err := h.store.ReplicaReads(ctx)
		if err != nil {
			h.replicaFailed(err)
			return next(c)
		}
		defer reads.Release()
		if holds, err := h.replicaHolds(ctx, c, p, reads); err != nil {
			h.replicaFailed(err)
			return next(c)
		} else if !holds {
			return next(c)
		}
		c.SetRequest(req.WithContext(store.UseReplica(req.Context(), reads)))
		err = next(c)
		if err == nil || c.Response().Committed || !store.IsUnavailable(err) {
			return err
		}
		h.replicaFailed(err)
		c.SetRequest(req)
		return next(c)
	}
}

// replicaHolds reports whether the standby of reads has replayed the
// reader's last write: the position this process remembers for the
// principal, or the one its request carries (cookie, header).
func (h *handler) replicaHolds(ctx context.Context, c echo.Context, p principal, reads *store.ReplicaReads) (bool, error) {
	who := principalRef(p)
	want := store.LSN(0)
	if who != "" {
		want = h.readAfter.get(who, h.now())
	}
	fromCookie := false
	if ck, err := c.Cookie(readAfterCookie); err == nil {
		if l, err := store.ParseLSN(ck.Value); err == nil && l > want {
			want, fromCookie = l, true
		}
	}
	if l, err := store.ParseLSN(c.Request().Header.Get(ReadAfterHeader)); err == nil && l > want {
		want = l
	}
	if want == 0 {
		return true, nil
	}
	replayed, promoted, err := reads.Replayed(ctx)
	if err != nil {
		return false, err
	}
	if promoted {
		replayed = ^store.LSN(0) // a primary now: it holds every write
	}
	if replayed < want {
		return false, nil
	}
	if who != "" {
		h.readAfter.forget(who, replayed)
	}
	if fromCookie {
		c.SetCookie(&http.Cookie{Name: readAfterCookie, Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	}
	return true, nil
}

// replicaFailed rests the replica for replicaRestFor.
func (h *handler) replicaFailed(err error) {
	until := time.Now().Add(replicaRestFor).UnixNano()
	if old := h.readAfter.restUntil.Load(); old < time.Now().UnixNano() {
		h.log.Warn("read replica failed: page reads go to the primary for a while",
			slog.Duration("for", replicaRestFor), slog.String("error", err.Error()))
	}
	h.readAfter.restUntil.Store(until)
}
