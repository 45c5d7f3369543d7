package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"launchwatch/internal/classify"
	"launchwatch/internal/client"
	"launchwatch/internal/eval"
)

// evalServer scores a running server through its API, as
// ../shared/tools/score_api.py does, so the two can be compared: each case
// is POSTed as numbered text batches (eval.VerdictBatches, the sizes the
// local verdict run uses) to a fresh launch, the status is read after each
// batch, then the launch's alarms and every stored line are read back and
// judged by eval.Score like a local run.
func evalServer(ctx context.Context, serverURL, token string, cases []eval.Case, opt eval.Options, envelope string) ([]eval.FileScore, error) {
	c, err := client.New(serverURL, token)
	if err != nil {
		return nil, err
	}
	// A fresh key per run and file: a launch that already holds lines
	// would answer for them instead.
	nonce := make([]byte, 4)
	rand.Read(nonce) //nolint:errcheck // crypto/rand.Read does not fail
	tag := fmt.Sprintf("s%d", opt.Seed)
	if opt.Detect {
		tag += "d"
	}
	if envelope != "" {
		tag += "-" + envelope
	}
	tag += "-" + hex.EncodeToString(nonce)
	out := make([]eval.FileScore, 0, len(cases))
	for i, cs := range cases {
		key := ("ev-" + tag + "-" + cs.Name)
		key = key[:min(len(key), 200)]
		o, err := observeServer(ctx, c, key, cs, cs.ServerParam(opt.Detect), eval.VerdictBatches(opt.Seed+uint64(i)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cs.Name, err)
		}
		out = append(out, eval.Score(cs, o))
	}
	return out, nil
}

// observeServer feeds one case to launch key and reads what the API shows.
func observeServer(ctx context.Context, c *client.Client, key string, cs eval.Case, server string, next eval.BatchFunc) (eval.Observation, error) {
	o := eval.Observation{Members: map[int][]int64{}}
	attrs := url.Values{}
	if server != "" {
		attrs.Set("server", server)
	}
	for i := 0; i < len(cs.Lines); {
		end := min(len(cs.Lines), i+max(1, next()))
		body := strings.Join(cs.Lines[i:end], "\n") + "\n"
		ack, err := c.PostText(ctx, key, attrs, int64(i+1), []byte(body))
		if err != nil {
			return o, fmt.Errorf("POST lines %d-%d: %w", i+1, end, err)
		}
		st := ack.Status
		if st == "" {
			l, err := c.Launch(ctx, key)
			if err != nil {
				return o, err
			}
			st = l.Status
		}
		o.Statuses = append(o.Statuses, st)
		i = end
	}
	l, err := c.Launch(ctx, key)
	if errors.Is(err, client.ErrNotFound) && len(cs.Lines) == 0 {
		return o, nil // nothing was posted: never started, scored as loading
	}
	if err != nil {
		return o, err
	}
	o.Status = l.Status
	if l.ReadySeq != nil {
		o.ReadySeq = *l.ReadySeq
	}
	for _, a := range l.Alarms {
		o.Alarms = append(o.Alarms, eval.Alarm{State: a.State, Alarm: classify.Alarm{
			ID: a.No, FirstSeq: a.FirstSeq, LastSeq: a.LastSeq, Kind: classify.AlarmKind(a.Kind), Fatal: a.Fatal,
			Headline: a.Headline, HeadlineSeq: a.HeadlineSeq, Ranks: a.Ranks, Fingerprint: a.Fingerprint}})
	}
	lines, err := c.AllLines(ctx, key)
	if err != nil {
		return o, err
	}
	for _, ln := range lines {
		if ln.Alarm != nil {
			o.Members[*ln.Alarm] = append(o.Members[*ln.Alarm], ln.Seq)
		}
	}
	return o, nil
}
