package main

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"launchwatch/internal/probe"
)

// autoProbe is `run --probe auto`: it finds what to probe from the ports
// the child's command line and environment name, the endpoints its log
// announced (the launch's endpoints, read from the server) and the TCP
// ports its process tree listens on, and probes them on 127.0.0.1 with the
// family's health path, then /health, /v1/models and /.
type autoProbe struct {
	r       *runner
	pid     int      // the child, leader of its process group
	named   []uint16 // the ports its command line and environment name
	family  string   // --server, "" if not given
	every   time.Duration
	checker *probe.Checker

	announced atomic.Pointer[announced] // what the server says of the launch

	mu         sync.Mutex // one round at a time
	lastFamily string
	listeners  []netip.AddrPort // what the process tree listened on when last read
	scanned    time.Time        // when /proc was last read
}

// announced is what the server knows of the launch that the probe uses.
type announced struct {
	endpoints []string // the endpoints its log announced
	server    string   // its family (given, or detected from its lines)
}

func (r *runner) newAutoProbe(pid int, cmdArgs, env []string, every time.Duration) *autoProbe {
	return &autoProbe{
		r: r, pid: pid, named: probe.CommandPorts(cmdArgs, env), family: r.attrs.Get("server"), every: every,
		checker: probe.NewChecker(probeTimeout(every)),
	}
}

// probeTimeout bounds one probe request: short, so a server that accepts
// and does not answer costs little, yet long enough for a busy one.
func probeTimeout(every time.Duration) time.Duration {
	return min(max(every, 500*time.Millisecond), 2*time.Second)
}

// launchPollEvery is how often the launch is read for its endpoints and
// family: ten probes, at least a second, at most 10s.
func launchPollEvery(every time.Duration) time.Duration {
	return min(max(10*every, time.Second), 10*time.Second)
}

// followLaunch reads the launch from the server until ctx ends or a probe
// passed (what to probe is found then): the endpoints its log announced
// and its family. It asks only once the server answered run (the lines are
// placed), and never holds the probes up: they use what it read last.
func (a *autoProbe) followLaunch(ctx context.Context) {
	wait := time.NewTimer(0)
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-wait.C:
		}
		if a.r.probePassed.Load() && (a.family != "" || a.announced.Load() != nil && a.announced.Load().server != "") {
			return
		}
		a.r.mu.Lock()
		placed := a.r.placed
		a.r.mu.Unlock()
		if placed {
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			l, err := a.r.c.LaunchNow(rctx, a.r.key)
			cancel()
			if err == nil {
				a.announced.Store(&announced{endpoints: l.Endpoints, server: l.Server})
			}
		}
		wait.Reset(launchPollEvery(a.every))
	}
}

// sourceWords say where a target came from, in a probe's detail.
var sourceWords = map[string]string{
	probe.SourceArgs: "named by its command line or PORT=",
	probe.SourceLog:  "announced in the log",
	probe.SourceProc: "a port the process listens on",
}

// round probes every target once, at the same time, and answers whether
// one passed, with what answered (or the most telling failure).
func (a *autoProbe) round(ctx context.Context) (bool, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var endpoints []string
	family := a.family
	if l := a.announced.Load(); l != nil {
		endpoints = l.endpoints
		if family == "" {
			family = l.server
		}
	}
	if family != a.lastFamily {
		a.checker.Forget() // another health path comes first now
		a.lastFamily = family
	}
	if time.Since(a.scanned) >= a.scanEvery(endpoints) {
		ls, err := probe.Listening(a.pid)
		if err != nil {
			ls = nil // not Linux, or /proc unreadable: the named ports still are
		}
		a.listeners, a.scanned = ls, time.Now()
	}
	targets := slices.DeleteFunc(probe.Targets(a.named, endpoints, a.listeners), func(t probe.Target) bool {
		return t.Source == probe.SourceProc && a.checker.NotHTTP(t) // a gRPC or rendezvous port: asked once
	})
	if len(targets) == 0 {
		return false, "nothing to probe yet: no port named on the command line or announced in the log, and none listening"
	}
	paths := probe.Paths(family)
	results := make([]probe.Result, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Go(func() { results[i] = a.checker.Check(ctx, t, paths) })
	}
	wg.Wait()
	best := -1
	for i, res := range results {
		switch {
		case res.OK:
			return true, describe(res)
		case best < 0 || res.Answered && !results[best].Answered:
			best = i
		}
	}
	return false, describe(results[best])
}

// scanEvery is how often the process tree's sockets are read: every
// probe while they are what is probed, else (a port is named, or a probe
// passed: what to probe is known) only now and then, for the address a
// named port is bound to. A server's tree may hold thousands of files.
func (a *autoProbe) scanEvery(endpoints []string) time.Duration {
	if len(a.named) == 0 && len(endpoints) == 0 && !a.r.probePassed.Load() {
		return 0
	}
	return launchPollEvery(a.every)
}

func describe(res probe.Result) string {
	return fmt.Sprintf("%s (%s)", res.Detail, sourceWords[res.Target.Source])
}
