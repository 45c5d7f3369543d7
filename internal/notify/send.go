package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"launchwatch/internal/store"
)

// DefaultMaxAttempts is how many attempts a delivery gets: with
// DefaultBackoff the last is about 17 hours after the first, so a target
// down for a night still gets its messages.
const DefaultMaxAttempts = 12

// DefaultBackoff waits 30 s after the first failed attempt and doubles,
// up to 4 hours.
func DefaultBackoff(n int) time.Duration {
	d := 30 * time.Second
	for i := 1; i < n && d < 4*time.Hour; i++ {
		d *= 2
	}
	return min(d, 4*time.Hour)
}

// maxErrorText bounds the last error kept in the delivery log.
const maxErrorText = 300

// attempt POSTs delivery d once and says what came of it: delivered on a
// 2xx answer; otherwise pending again after the backoff, or failed once
// the attempts are spent.
func (w *Worker) attempt(ctx context.Context, d store.WebhookDelivery) store.DeliveryResult {
	now := w.cfg.Clock.Now()
	status, err := w.post(ctx, d)
	r := store.DeliveryResult{State: "delivered", NextAt: d.NextAt, At: now}
	if status != 0 {
		r.LastStatus = &status
	}
	if err == nil {
		return r
	}
	r.LastError = truncate(err.Error(), maxErrorText)
	n := d.Attempts + 1
	if n >= w.cfg.MaxAttempts {
		r.State = "failed"
		w.cfg.Log.Warn("notify: giving up a webhook delivery", "delivery", d.ID, "url", d.URL, "attempts", n, "error", r.LastError)
		return r
	}
	r.State, r.NextAt = "pending", now.Add(w.cfg.Backoff(n))
	return r
}

// post sends d's body and returns the answer's status (0 when there was
// none) and an error unless it was a 2xx.
func (w *Worker) post(ctx context.Context, d store.WebhookDelivery) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader([]byte(d.Body)))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Launchwatch-Webhook/1")
	// Receivers can drop a repeat: a delivery whose answer was lost is
	// sent again with the same id.
	req.Header.Set("X-Launchwatch-Delivery", strconv.FormatInt(d.ID, 10))
	req.Header.Set("X-Launchwatch-Event", d.Kind)
	res, err := w.cfg.Client.Do(req)
	if err != nil {
		var refused *RefusedError
		if errors.As(err, &refused) {
			// Said plainly: the address is the news, not the dial.
			refused.Host = req.URL.Hostname()
			return 0, refused
		}
		return 0, err
	}
	defer res.Body.Close()
	// Nothing of the answer is kept: a target that is no webhook receiver
	// (an internal page, say) must not have its content shown in the
	// delivery log. A little is read so the connection can be used again.
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 4<<10))
	if res.StatusCode/100 == 2 {
		return res.StatusCode, nil
	}
	if res.StatusCode/100 == 3 {
		return res.StatusCode, fmt.Errorf("HTTP %d: redirects are not followed", res.StatusCode)
	}
	return res.StatusCode, fmt.Errorf("HTTP %d", res.StatusCode)
}

// truncate cuts s to about n bytes, as text PostgreSQL can hold (a
// receiver's answer may be any bytes).
func truncate(s string, n int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
