package probe

import (
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Sources of a target: where run learned the port.
const (
	SourceArgs = "command line" // --port N, --port=N, -p N, --http-port, --listen, PORT=
	SourceLog  = "log"          // an endpoint the log announced (the launch's endpoints)
	SourceProc = "listening"    // a TCP port the process tree listens on (/proc)
)

// Target is an address to probe: a scheme, a host to connect to and a port.
type Target struct {
	Scheme string // http or https
	Host   string // an IP address to connect to (127.0.0.1 unless the socket is bound to another)
	Port   uint16
	Source string // SourceArgs, SourceLog or SourceProc
}

// Base is the target's URL without a path: http://127.0.0.1:8000.
func (t Target) Base() string {
	return t.Scheme + "://" + netip.AddrPortFrom(netip.MustParseAddr(t.Host), t.Port).String()
}

// loopback is where a port named without an address is probed.
const loopback = "127.0.0.1"

// portFlags are the command-line flags whose value names the server's
// port, alone or as HOST:PORT; -p also in docker's HOST_PORT:CONTAINER_PORT
// form, whose first port is the one this host listens on.
var portFlags = []string{"--port", "-p", "--http-port", "--listen"}

// CommandPorts returns the ports the command line and the environment name
// (the interface: --port N, --port=N, -p N, --http-port, --listen,
// PORT= in the environment), each once, in the order named. Arguments with
// spaces (the script of `sh -c "..."`) are read word by word too.
func CommandPorts(args, env []string) []uint16 {
	var words []string
	for _, a := range args {
		words = append(words, a)
		if strings.ContainsAny(a, " \t\n") {
			words = append(words, strings.Fields(a)...)
		}
	}
	var out []uint16
	add := func(p uint16, ok bool) {
		if ok && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for i, w := range words {
		for _, f := range portFlags {
			switch {
			case w == f && i+1 < len(words):
				add(flagPort(f, words[i+1]))
			case strings.HasPrefix(w, f+"="):
				add(flagPort(f, w[len(f)+1:]))
			}
		}
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PORT="); ok {
			add(parsePort(v))
		}
	}
	return out
}

// flagPort reads the value of a port flag: "8000", "0.0.0.0:8000",
// ":8000", "[::]:8000", "http://0.0.0.0:8000"; for -p also docker's
// "8080:80" and "127.0.0.1:8080:80/tcp" (the host's port, first).
func flagPort(flag, v string) (uint16, bool) {
	if p, ok := parsePort(v); ok {
		return p, true
	}
	if flag == "-p" {
		v, _, _ = strings.Cut(v, "/") // 8080:80/tcp
		parts := strings.Split(v, ":")
		switch len(parts) {
		case 2: // HOST_PORT:CONTAINER_PORT
			if _, ok := parsePort(parts[1]); ok {
				return parsePort(parts[0])
			}
		case 3: // IP:HOST_PORT:CONTAINER_PORT
			return parsePort(parts[1])
		}
		return 0, false
	}
	if u, err := url.Parse(v); err == nil && u.Host != "" {
		return parsePort(u.Port())
	}
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		return parsePort(v[i+1:])
	}
	return 0, false
}

func parsePort(s string) (uint16, bool) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || s[0] == '+' {
		return 0, false
	}
	return uint16(n), true
}

// EndpointTarget turns an endpoint the log announced ("http://0.0.0.0:8000",
// "https://[::]:8443", "ws://localhost:9000") into a target on the loopback
// address. Endpoints of other protocols (gRPC) are no target.
func EndpointTarget(ep string) (Target, bool) {
	u, err := url.Parse(ep)
	if err != nil {
		return Target{}, false
	}
	scheme := ""
	switch strings.ToLower(u.Scheme) {
	case "http", "ws":
		scheme = "http"
	case "https", "wss":
		scheme = "https"
	default:
		return Target{}, false
	}
	p, ok := parsePort(u.Port())
	if !ok {
		return Target{}, false
	}
	return Target{Scheme: scheme, Host: loopback, Port: p, Source: SourceLog}, true
}

// ListenerTarget is where a socket listening on a is reached: on the
// loopback address when it listens on every address (or on the loopback),
// else on the one it is bound to.
func ListenerTarget(a netip.AddrPort) Target {
	host := a.Addr()
	switch {
	case host.IsUnspecified() && host.Is6():
		host = netip.IPv6Loopback() // "::" may be IPv6 only; ::1 always reaches it
	case host.IsUnspecified():
		host = netip.MustParseAddr(loopback)
	}
	return Target{Scheme: "http", Host: host.String(), Port: a.Port(), Source: SourceProc}
}

// familyHealth is the health path of each server family that has one
// (the classifier's family names: --server, or the launch's detected
// server).
var familyHealth = map[string]string{
	"vllm":      "/health",
	"sglang":    "/health",
	"tgi":       "/health",
	"llamacpp":  "/health",
	"llamafile": "/health",
	"trtllm":    "/health",
	"lmdeploy":  "/health",
	"aphrodite": "/health",
	"mistralrs": "/health",
	"triton":    "/v2/health/ready",
	"ollama":    "/",
}

// defaultPaths are probed after the family's own, in order.
var defaultPaths = []string{"/health", "/v1/models", "/"}

// Paths are the paths probed on a target of a server of family, in order:
// the family's health path when it has one, then /health, /v1/models, /.
func Paths(family string) []string {
	out := []string{}
	if p := familyHealth[strings.ToLower(family)]; p != "" {
		out = append(out, p)
	}
	for _, p := range defaultPaths {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// maxTargets bounds the targets probed at a time.
const maxTargets = 16

// Targets are what to probe, given the ports the command line named
// (args), the endpoints the log announced (endpoints) and the addresses
// the process tree listens on (listeners, nil when unknown). Ports that
// are named (command line or log) are probed, and only they: a server's
// process tree also listens on ports that are not its API (a rendezvous
// store, ZMQ queues, a Ray dashboard that answers / long before the model
// is loaded), and a port named for the server is its API. A named port
// that a socket of the tree listens on with an address of its own
// (--host 10.0.0.5) is probed on that address. When no port is named,
// every port the tree listens on is probed. One target per port, at most
// maxTargets.
func Targets(args []uint16, endpoints []string, listeners []netip.AddrPort) []Target {
	var out []Target
	byPort := map[uint16]int{}
	add := func(t Target) {
		if i, ok := byPort[t.Port]; ok {
			if t.Scheme == "https" && out[i].Scheme != "https" {
				out[i].Scheme = "https" // the log says how it serves
			}
			return
		}
		if len(out) < maxTargets {
			byPort[t.Port] = len(out)
			out = append(out, t)
		}
	}
	for _, p := range args {
		add(Target{Scheme: "http", Host: loopback, Port: p, Source: SourceArgs})
	}
	for _, ep := range endpoints {
		if t, ok := EndpointTarget(ep); ok {
			add(t)
		}
	}
	if len(out) > 0 {
		for _, l := range listeners {
			i, ok := byPort[l.Port()]
			if a := l.Addr(); ok && !a.IsUnspecified() && !a.IsLoopback() {
				out[i].Host = a.String() // bound to that address alone
			}
		}
		return out
	}
	for _, l := range listeners {
		add(ListenerTarget(l))
	}
	return out
}
