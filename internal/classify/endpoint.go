package classify

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The recogniser of announced endpoints: a line in which a server says, in
// its own words, where it listens ("Uvicorn running on http://0.0.0.0:8000",
// "server listen http://[::]:8080", "Please connect to custom endpoint at
// http://localhost:5001", "To see the GUI go to: http://127.0.0.1:8188",
// "Serving on 10.0.0.5:9000", "Tomcat started on port(s): 8080 (http)", a
// framed banner's address line "║  http://0.0.0.0:3000  ║"), and the access
// log line of a health or readiness request answered 2xx ("GET /health
// HTTP/1.1" 200). For a family with no readiness rule of its own such a line
// is readiness (State.announcedReady); for every family its endpoint goes on
// the launch (Summary.Endpoints), for `launchwatch run` to probe.
//
// It reads one line and keeps no state. A line is an announcement only when
// it has both an address (a URL with a port, host:port with an IP or
// localhost host, or "port N") and a listening phrase or a frame around it,
// and nothing in it says the address is another component's (a dashboard,
// metrics, a database, a rendezvous), a failure ("failed to connect to"), a
// future ("will listen on") or advice ("e.g.").

// announcement is what one line says about a listening endpoint.
type announcement struct {
	endpoint string // "scheme://host:port", "" when the line gives none
	ok       bool   // the line announces the server serving (else only its address, if any)
	health   bool   // an access log's 2xx answer to a health or readiness request
	advice   bool   // only an advising phrase says so (advisingPhrases)
	// banner: only a frame around the address says so (framed), no
	// listening phrase. Applications print their banner before the server
	// they start binds the address, so a bind failure may still follow.
	banner bool
}

// endpointLiterals are the prefilter's literals for the recogniser: a line
// containing none of them is never an announcement (ruleSet.scan sets
// hits.endpoint). Case is ignored. Every announcement has a listening or an
// advising phrase, or is a health request's answer, or is framed around a
// URL; a wrapper's address-less "Model server started." has a phrase too.
var endpointLiterals = slices.Concat(listeningPhrases, advisingPhrases,
	[]string{"://", "/health", "/ready", "/ping", "/models", "/status", "server has started",
		// a Common Log Format answer of any path (healthAnswered)
		`HTTP/1.0" 2`, `HTTP/1.1" 2`, `HTTP/2.0" 2`,
		// a server's statement that it is ready (readyStatement)
		"server ready", "server is ready", "service ready", "service is ready", "api ready", "api is ready",
		"app is ready", "application is ready", "ready to accept", "ready to serve", "ready for serving",
		"ready for requests", "ready for traffic", "ready for inference", "ready to receive", "ready to handle",
		// a banner's title, "<program> v<version> ready" (readyStatement)
		" ready"})

var (
	listeningSet     = newWordSet(listeningPhrases)
	advisingSet      = newWordSet(advisingPhrases)
	notAnnouncingSet = newWordSet(notAnnouncing)
	loadingSet       = newWordSet(loadingWords)
	modelSet         = newWordSet(modelWords)
	stopSet          = newWordSet(stopWords)
)

// maxEndpoints bounds the endpoints a launch remembers.
const maxEndpoints = 8

var (
	reEndpointURL = regexp.MustCompile(`(?i)\b(https?|grpcs?|wss?)://(\[[0-9a-f:.]*\]|[a-z0-9][a-z0-9._-]*|\*)?:(\d{1,5})\b`)
	// host:port with a host that is an address (not "file.py:123" nor a
	// time): an IPv4 address, localhost, [v6], "*" or nothing (":8080").
	reEndpointHostPort = regexp.MustCompile(`(?i)(?:^|[\s('"=@,])((?:\d{1,3}(?:\.\d{1,3}){3}|localhost|\[[0-9a-f:.]*\]|\*)?):(\d{2,5})\b`)
	// A wrapper's or a frontend's line that its server started, with no
	// address: "Model server started.", "Inference server is running".
	reServerStarted = regexp.MustCompile(`(?i)^(?:[\w.:\[\]-]+\s+){0,3}server (?:has )?(?:started|is running|is up)\.?\s*$`)
	// A server's statement, with no address, that it serves: "Server
	// ready", "Model server is ready to serve requests", "All models
	// loaded, server ready.", "Worker with pid 118 ready for serving
	// traffic", "Ready to accept requests". The subject is the server (not
	// a tokenizer, an engine or a cluster: components that are ready
	// before the server is) and the statement ends the line.
	reReadyStatement = regexp.MustCompile(`(?i)^(?:[\w.,:'\[\]()-]+\s+){0,5}?(?:server|service|api|application|app|gateway|proxy|router|processor|frontend|worker(?: with pid \d+)?)(?: is)? (?:now )?ready(?: to (?:accept|serve|receive|handle) (?:requests|connections|traffic)| for (?:serving(?: traffic)?|requests|traffic|inference))?[.!]?\s*$|^(?:now )?ready to (?:accept|serve|receive|handle) (?:requests|traffic)[.!]?\s*$`)
	// A banner's title that names the program and its version and says
	// it is ready: "🚀  crane-oai  v0.4.1  ready", "acme-server 2.3.0 is
	// ready" (after its leading symbols, peelMarks).
	reVersionReady = regexp.MustCompile(`(?i)^(?:[\w.:\[\]()-]+\s+){0,2}?[a-z][\w.-]*\s+v?\d+(?:\.\d+){1,3}[\w.+-]*\s+(?:is\s+)?(?:now\s+)?ready[.!]?\s*$`)
	reEndpointPort = regexp.MustCompile(`(?i)\bports?(?:\(s\))?(?:\s+is)?[\s:=#]+(\d{2,5})\b`)
	// A port alone after listening's preposition: "listening on 50051"
	// (not a host's first digits, "listening on 10.0.0.5:80", nor a
	// count, "listening on 10 queues": the port ends the sentence or a
	// clause).
	reListenBarePort = regexp.MustCompile(`(?i)\blisten(?:ing|s)?\s+(?:on|at)\s+(\d{2,5})(?:\s*$|[,;)]|\.(?:$|\s)|\s+[(-])`)
	// An access log's answer to a health or readiness request: uvicorn's
	// `"GET /health HTTP/1.1" 200` or a plain `GET /healthz 200`, key=value
	// `method=GET path=/ready status=200`, gin's `| 200 | ... | GET "/health"`
	// (healthAnswered).
	reHealthPath    = `/(?:[\w.-]+/)*(?:health[\w-]*|healthz|ready|readyz|readiness|ping|models|status|v2/health/ready)`
	reHealthRequest = regexp.MustCompile(`(?i)\b(?:GET|HEAD)\s+"?` + reHealthPath + `(?:\?\S*)?"?(?:\s+HTTP/[\d.]+"?)?\s+(?:-\s+)?2\d\d\b`)
	reHealthFields  = regexp.MustCompile(`(?i)\bmethod="?(?:GET|HEAD)"?.*\b(?:path|uri|url)="?` + reHealthPath + `\b.*\bstatus(?:_code)?="?2\d\d\b`)
	reHealthGin     = regexp.MustCompile(`(?i)\|\s*2\d\d\s*\|.*\|\s*(?:GET|HEAD)\s+"` + reHealthPath + `"`)
)

// listeningPhrases say that a server listens at the address on the line
// (lower case; a line is searched ignoring ASCII case).
var listeningPhrases = []string{
	"listening", "listen on", "listen at", "server listen", "listens on",
	"running on", "running at", "serving on", "serving at", "serving http", "served at", "served on",
	"started on", "started at", "starting server", "starting http", "starting api", "start server",
	"available at", "available on", "accessible at", "accessible on", "reachable at",
	"ready at", "ready on", "is up at", "up and running", "live at", "live on",
	"bound to", "bound on", "bound at",
	// the Java model servers' "Inference API bind to: http://…" (TorchServe,
	// DJL Serving's "BOTH API bind to: …")
	"api bind to",
	"endpoint:", "endpoint at", "url:", "urls:",
	"server started", "server is running", "server running", "started server", "started http",
	"started grpc", "started rest", "api server",
	// "Running gRPC ModelServer at 0.0.0.0:8500", "REST API at localhost:8501" (an
	// address glued to a colon, "at:localhost:8501", is not read as one)
	"server at", "api at",
	// "HTTP server is up on port 8080", "ready to accept requests on
	// 0.0.0.0:50051", "Ready to serve at http://…", Sanic's "Goin' Fast @
	// http://…", Phoenix's "Running App.Endpoint with Bandit 1.5.0 at
	// 0.0.0.0:4000 (http)"
	"is up on", "accept requests", "accepting requests", "ready to serve", "goin' fast", "endpoint with",
}

// advisingPhrases tell a person where to point a browser or a client
// ("Please open http://0.0.0.0:23333 in a browser"). A wrapper may print
// them before the server it runs has bound its port (LMDeploy prints its
// hint, then uvicorn starts), so alone they make an announcement that
// waits like one before loading (announcedReady), never readiness at once;
// after loading, a quiet end of the stream confirms it.
var advisingPhrases = []string{
	"go to", "connect to", "open http", "visit http", "navigate to", "browse to", "point your browser",
}

// notAnnouncing are words that make an address on the line something other
// than the server's own listening endpoint, or not yet, or not at all.
var notAnnouncing = []string{
	"dashboard", "metric", "prometheus", "tensorboard", "wandb", "grafana", "jaeger", "otlp", "pprof",
	"redis", "postgres", "mysql", "mongo", "etcd", "kafka", "rabbitmq", "nats://", "gcs", "raylet",
	"object store", "download", "fail", "error", "unable", "cannot", "can't", "could not",
	"couldn't", "refused", "retry", "retrying", "timeout", "timed out", "waiting for", "wait for",
	"will ", "not ", "n't", "tcp://", "nccl", "master_", "master addr", "rendezvous", "init_method",
	"dist_url", "zmq", "ipc://", "unix://", "huggingface.co", "github.com", "e.g.", "example", "usage:",
	"--host", "--port", "deprecat", "debugger", "profiler", "jupyter", "notebook",
	"connecting", // a client's "Connecting to server at ...": someone else's endpoint
}

// proxyWord reports "proxy" as a word of its own on the line ("HTTP
// proxy listening on ...", "using proxy http://..."): someone else's
// address, or a proxy beside the server. Inside a program's name
// ("llm-proxy listening on http://0.0.0.0:8787", "auth_proxy") it is the
// name of the server that announces itself.
func proxyWord(body string) bool {
	for i := 0; i < len(body); {
		j := indexFold(body[i:], "proxy")
		if j < 0 {
			return false
		}
		j += i
		end := j + len("proxy")
		if (j == 0 || !isProgramNameByte(body[j-1])) && (end == len(body) || !isProgramNameByte(body[end])) {
			return true
		}
		i = end
	}
	return false
}

// isProgramNameByte reports a byte of a program's name: a letter, a
// digit, '-' or '_'.
func isProgramNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// preBindPhrases announce the address a server is about to bind, before
// it serves: vLLM's "Starting vLLM API server 0 on http://0.0.0.0:8000"
// comes before uvicorn binds it (vLLM's readiness is uvicorn's
// "Application startup complete.", the shared corpus's rule). The address
// goes on the launch; the line is no readiness. A router's "Starting
// router on 0.0.0.0:3000 | mode: ..." (sgl-router and its vllm-router
// fork) comes before it has found its workers. llama.cpp's server of
// 2024-2025 ("HTTP server is listening, hostname: 0.0.0.0, port: 8080")
// binds before it loads the model, and so do the programs that embed it
// (llamafile): its readiness is "server is listening on ..." after the load.
var preBindSet = newWordSet([]string{"starting vllm api server", "starting router on", "http server is listening, hostname:"})

// bareStartedLine reads a logger's line that says only "Started" or
// "Ready" (Petals' server once its blocks serve): an announcement with no
// address, which waits as one before loading and is readiness after it
// (announcedReady). Only a line with a logger's prefix: a bare word
// printed alone is too little to go on.
func bareStartedLine(body string) announcement {
	switch strings.TrimSuffix(body, ".") {
	case "Started", "Ready", "started", "ready":
		return announcement{ok: true}
	}
	return announcement{}
}

// announcedEndpoint reads one line body. The words are looked at before
// the address: most lines that pass the prefilter ("port" is in "import")
// have no listening phrase, and finding an address costs more.
func announcedEndpoint(body string) announcement {
	if len(body) > 1024 {
		return announcement{} // a dump, not a sentence about an address
	}
	if healthAnswered(body) {
		return announcement{ok: true, health: true}
	}
	if socketTableRow(body) {
		return announcement{}
	}
	if readyStatement(body) {
		return announcement{ok: true} // no address: it waits (announcedReady)
	}
	phrase := hasListeningPhrase(body) || labelledAddress(body)
	listening := phrase || framed(body)
	advice := !listening && advisingSet.in(body)
	if !listening && !advice {
		return announcement{}
	}
	ep := endpointIn(body)
	if ep == "" {
		if reServerStarted.MatchString(body) {
			return announcement{ok: true} // no address: it waits (announcedReady)
		}
		return announcement{}
	}
	if notAnnouncingSet.in(body) || proxyWord(body) {
		return announcement{}
	}
	if preBindSet.in(body) {
		return announcement{endpoint: ep}
	}
	return announcement{endpoint: ep, ok: true, advice: advice, banner: listening && !phrase}
}

// readyStatement reports a server's addressless statement that it is
// ready (reReadyStatement). Its literals are in endpointLiterals.
func readyStatement(body string) bool {
	if len(body) > 160 || indexFold(body, "ready") < 0 {
		return false
	}
	return reReadyStatement.MatchString(body) || reVersionReady.MatchString(peelMarks(strings.TrimSpace(body)))
}

// labelledAddress reports a banner's or a settings table's row that gives
// the server's own address under a label: "Listen  : http://0.0.0.0:8080",
// "Bind address: 0.0.0.0:9000", "HTTP API = http://127.0.0.1:3000" (the
// label alone before the separator, nothing else of the line's but the
// address after it).
func labelledAddress(body string) bool {
	t := strings.TrimSpace(body)
	i := strings.IndexAny(t, ":=")
	if i <= 0 || i > 24 {
		return false
	}
	for j := 0; j < i; j++ {
		if c := t[j]; c != ' ' && !('a' <= c|0x20 && c|0x20 <= 'z') {
			return false // not a label of words: no allocation below
		}
	}
	label := strings.ToLower(strings.Join(strings.Fields(t[:i]), " "))
	if !addressLabels[label] {
		return false
	}
	rest := strings.TrimSpace(t[i+1:])
	return rest != "" && !strings.ContainsAny(rest, " \t") && endpointIn(rest) != ""
}

// addressLabels are the labels under which a server prints the address it
// listens at (labelledAddress).
var addressLabels = map[string]bool{
	"listen": true, "listening": true, "listening on": true, "listen on": true, "listen address": true,
	"bind": true, "bind address": true, "bound to": true, "address": true, "serving": true, "serving on": true,
	"server": true, "server address": true, "http": true, "http api": true, "rest": true, "rest api": true,
	"grpc": true, "grpc api": true, "api": true, "openai api": true,
}

// announcedAfterReady is announcedEndpoint once the launch is ready and
// bound, where all an announcement still does is add its address to the
// launch's endpoints (announcedReady): a health request answered adds
// none, so the access log lines that make most of a serving launch skip
// healthAnswered's regular expressions unless they also announce. full is
// whether the endpoints are full already, when nothing is left to add.
func announcedAfterReady(body string, full bool) announcement {
	if full || len(body) > 1024 {
		return announcement{}
	}
	if !hasListeningPhrase(body) && !framed(body) && !advisingSet.in(body) {
		return announcement{}
	}
	if healthAnswered(body) {
		return announcement{}
	}
	return announcedEndpoint(body)
}

// socketTableRow reports a row of a socket table that a command the
// operator ran printed (netstat's "  TCP    127.0.0.1:8000    0.0.0.0:0
// LISTENING    9472", "tcp  0  0 0.0.0.0:8000  0.0.0.0:*  LISTEN
// 77/python", ss's "LISTEN 0 4096 0.0.0.0:8000 0.0.0.0:*", lsof's "...
// TCP *:8000 (LISTEN)"): someone looking at who holds a port, no server
// announcing that it listens.
func socketTableRow(body string) bool {
	t := strings.TrimLeft(body, " \t")
	if strings.HasSuffix(t, "(LISTEN)") {
		return true
	}
	proto, rest, ok := strings.Cut(t, " ")
	if !ok {
		return false
	}
	switch proto {
	case "TCP", "UDP", "tcp", "tcp4", "tcp6", "udp", "udp4", "udp6", "LISTEN", "ESTAB":
	default:
		return false
	}
	addrs := 0
	for _, f := range strings.Fields(rest) {
		if strings.IndexByte(f, ':') > 0 || strings.HasPrefix(f, "[::") || strings.HasPrefix(f, "*:") {
			addrs++
		}
	}
	return addrs >= 2
}

// endpointIn finds the first address on the line and normalises it to
// "scheme://host:port" (http and all interfaces when the line gives none),
// "" if none.
func endpointIn(body string) string {
	// The regular expressions run only where their address can be: they
	// cost more than everything else the classifier does on a line.
	if !strings.Contains(body, "://") {
		// no URL
	} else if m := reEndpointURL.FindStringSubmatchIndex(body); m != nil {
		scheme := strings.ToLower(body[m[2]:m[3]])
		host := "0.0.0.0"
		if m[4] >= 0 && m[5] > m[4] && body[m[4]:m[5]] != "*" {
			host = strings.ToLower(body[m[4]:m[5]])
		}
		if port, ok := validPort(body[m[6]:m[7]]); ok {
			return scheme + "://" + host + ":" + port
		}
	}
	if !hasColonDigits(body) {
		// no host:port
	} else if m := reEndpointHostPort.FindStringSubmatchIndex(body); m != nil {
		host := "0.0.0.0"
		if m[3] > m[2] && body[m[2]:m[3]] != "*" {
			host = strings.ToLower(body[m[2]:m[3]])
		}
		if port, ok := validPort(body[m[4]:m[5]]); ok {
			return "http://" + host + ":" + port
		}
	}
	if indexFold(body, "port") < 0 {
		// no "port N"
	} else if m := reEndpointPort.FindStringSubmatchIndex(body); m != nil {
		if port, ok := validPort(body[m[2]:m[3]]); ok {
			return "http://0.0.0.0:" + port
		}
	}
	if indexFold(body, "listen") < 0 {
		// no "listening on N"
	} else if m := reListenBarePort.FindStringSubmatchIndex(body); m != nil {
		if port, ok := validPort(body[m[2]:m[3]]); ok {
			return "http://0.0.0.0:" + port
		}
	}
	return ""
}

// hasColonDigits reports a ':' followed by two digits, which every
// host:port has.
func hasColonDigits(body string) bool {
	for i := strings.IndexByte(body, ':'); i >= 0 && i+2 < len(body); {
		if isDigit(body[i+1]) && isDigit(body[i+2]) {
			return true
		}
		j := strings.IndexByte(body[i+1:], ':')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// healthAnswered reports an access log's 2xx answer to a health or
// readiness request. Each form's regular expression runs only on lines
// with what it needs: a health path, GET or HEAD, and its own marks.
func healthAnswered(body string) bool {
	// Access logs write the method in capitals; "target" and "header"
	// are not one.
	if strings.IndexByte(body, '/') < 0 || !strings.Contains(body, "GET") && !strings.Contains(body, "HEAD") {
		return false
	}
	path := false
	for _, w := range [...]string{"/health", "/ready", "/ping", "/models", "/status"} {
		if indexFold(body, w) >= 0 {
			path = true
			break
		}
	}
	switch {
	case !path:
		// Any path, in a server's own access log in the Common Log
		// Format (gunicorn, werkzeug, nginx: client address, identity,
		// user, [time], the request, the status): a probe of "/"
		// answered is an answered health request too. A client's log of
		// its own request is never in this format.
		return strings.Contains(body, " - ") && strings.IndexByte(body, '[') >= 0 && reCommonLogAnswer.MatchString(body)
	case reHealthRequest.MatchString(body):
		return true
	case indexFold(body, "method=") >= 0 && reHealthFields.MatchString(body):
		return true
	default:
		return strings.IndexByte(body, '|') >= 0 && reHealthGin.MatchString(body)
	}
}

// reCommonLogAnswer is a Common Log Format line (gunicorn's, werkzeug's,
// nginx's access log) answering a GET or HEAD 2xx:
// `10.0.0.5 - - [18/Feb/2026:07:10:11 +0000] "GET / HTTP/1.0" 200 7`.
var reCommonLogAnswer = regexp.MustCompile(`(?:^|\s)(?:\d{1,3}(?:\.\d{1,3}){3}|\[?[0-9a-f:]+\]?) - \S+ \[[^\]]{8,40}\] "(?:GET|HEAD) /\S* HTTP/[\d.]+" 2\d\d\b`)

// reUnavailable is an access log's 503 answer to a GET or HEAD request:
// uvicorn's `"GET /v1/models/m HTTP/1.1" 503`, a plain `GET /health 503`,
// key=value fields (BentoML's `(scheme=http,method=GET,path=/readyz,...)
// (status=503,...)`).
var reUnavailable = regexp.MustCompile(`\b(?:GET|HEAD) /\S*(?: HTTP/[\d.]+)?"? (?:- )?503\b|\bmethod="?(?:GET|HEAD)\b.*\bstatus(?:_code)?="?503\b`)

// unavailableAnswered reports an access log line answering a request 503
// Service Unavailable: what a server that is up but not ready answers its
// readiness probe.
func unavailableAnswered(t string) bool {
	return strings.Contains(t, "503") && reUnavailable.MatchString(t)
}

// validPort is the port without leading zeros, if it is one.
func validPort(s string) (string, bool) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return "", false
	}
	return strconv.Itoa(n), true
}

func hasListeningPhrase(body string) bool { return listeningSet.in(body) }

// framed reports a banner's address line: the address between frame
// characters ("===", "***", "│", "║", "#", "|") on both sides, with at most
// a short label beside it ("║  API: http://0.0.0.0:3000  ║").
func framed(body string) bool {
	t := strings.TrimSpace(body)
	lead, trail := frameRun(t, false), frameRun(t, true)
	if lead == 0 || trail == 0 || lead+trail >= len(t) {
		return false
	}
	inner := strings.TrimSpace(t[lead : len(t)-trail])
	return len(inner) <= 96 && strings.Count(inner, " ") <= 6
}

// frameRun is the byte length of the frame characters (and spaces among
// them) at the start of t, or at its end when fromEnd.
func frameRun(t string, fromEnd bool) int {
	n, frames := 0, 0
	for n < len(t) {
		var r rune
		var size int
		if fromEnd {
			r, size = utf8.DecodeLastRuneInString(t[:len(t)-n])
		} else {
			r, size = utf8.DecodeRuneInString(t[n:])
		}
		switch {
		case strings.ContainsRune("=*#|+~", r) || r >= 0x2500 && r <= 0x257F: // box drawing
			frames++
		case r == ' ' || r == '\t':
		default:
			if frames == 0 {
				return 0
			}
			return n
		}
		n += size
	}
	return n
}

// addEndpoint remembers an announced endpoint once, at most maxEndpoints.
func (s *State) addEndpoint(ep string) {
	if ep == "" || len(s.d.Endpoints) >= maxEndpoints {
		return
	}
	for _, e := range s.d.Endpoints {
		if e == ep {
			return
		}
	}
	s.d.Endpoints = append(s.d.Endpoints, ep)
}

// familiesWithReadiness are the families whose own rule knows lines that
// announce an endpoint before the server serves: SGLang's uvicorn lines
// come before its warmup; TGI's shards and its router bind before the
// router connects; llama.cpp listened before it loaded the model; Ollama's
// runners listen before they load; Triton (and TensorRT-LLM under it)
// starts its metrics before its services; TorchServe's frontend binds its
// APIs and says "Model server started." while its workers still load the
// model; Truss's uvicorn starts while model.load() runs in a thread beside
// it. For them an announcement is an endpoint, never readiness. Other
// families with readiness lines of their own are not here: vLLM runs inside
// wrappers (DJL, Xinference, BentoML, Ray Serve) that never print vLLM's
// readiness but announce their own, and where vLLM's uvicorn announces, it
// is ready within lines anyway.
var familiesWithReadiness = map[string]bool{
	"sglang": true, "tgi": true, "llamacpp": true, "ollama": true, "triton": true, "trtllm": true,
	"torchserve": true, "truss": true,
}

// pendingReady is an announcement waiting for what follows it to say
// whether the server serves: the announcing line's verdict and time.
type pendingReady struct {
	Line LineVerdict `json:"line"`
	At   time.Time   `json:"at"`
	Src  string      `json:"src,omitempty"`
	N    int64       `json:"n"` // the line count at the announcement
	// Other counts the lines since of other origins than the announcing
	// line's (another compose service, another pod): they neither confirm
	// the announcement nor, when quiet, count as its quiet lines.
	Other int64 `json:"other,omitempty"`
	// Bind: the line was a BeforeBind ready line (awaitBind), not an
	// announcement: the bind's announcement makes the launch ready at its
	// own line, whatever the family.
	Bind bool `json:"bind,omitempty"`
	// Quiet: a quiet end of the stream confirms it (SettleStreamEnd): a
	// BeforeBind line, or advice after the model loaded ("To see the GUI go
	// to: http://..." is a server's last line until a request comes).
	Quiet bool `json:"quiet,omitempty"`
	// Banner: the announcement was a banner's framed address: the banner's
	// own lines come next, so it waits longer (confirmAfterBanner) unless
	// a request is served, the stream goes quiet, or a listening line
	// comes, which is readiness at its own line.
	Banner bool `json:"banner,omitempty"`
}

// awaitBind handles a BeforeBind ready line (its verdict v, time at,
// source src) and reports whether its readiness waits: when no endpoint
// was announced as bound before it (a server handed a bound socket says
// where it listens first, as vLLM does), the bind is still to come and
// may fail on the next line (uvicorn's "[Errno 98] ... address already in
// use"). The wait ends as an announcement's does (afterAnnouncement), or
// at the bind's own announcement (announcedReady).
func (s *State) awaitBind(v *LineVerdict, at time.Time, src string) bool {
	if s.d.Ready != nil || s.d.Bound || s.d.Server == "vllm" {
		// vLLM's own uvicorn is handed a bound socket (and vLLM of 2024
		// that was not says "Uvicorn running on" a line later anyway).
		return false
	}
	s.d.Announced = &pendingReady{Line: *v, At: at, Src: src, N: s.d.N, Bind: true, Quiet: true}
	return true
}

// confirmAfter is how many lines after an announcement must pass without
// loading work or an error for it to become readiness: a server that
// opens its port before it loads its model (BentoML, OpenVINO Model
// Server, routers waiting for their workers, llama.cpp of 2024) says what
// it loads on the next lines.
const confirmAfter = 3

// confirmAfterBanner is the same for a banner's address, counted past the
// banner's own lines: a server that goes on logging without a failure
// (metrics, its nodes) serves, though it never said so in other words.
const confirmAfterBanner = 15

// announcedReady handles a line that announces an endpoint (its verdict v
// so far, its time at, its source src) and reports whether the launch
// became ready on it. It remembers the endpoint whatever the family. For
// a family with no readiness rule of its own, an answered health request,
// or an announcement after the launch loaded something, is readiness at
// once; an announcement before any loading work waits (afterAnnouncement).
func (s *State) announcedReady(fb *feedBuf, v *LineVerdict, at time.Time, src string, a *announcement) bool {
	s.addEndpoint(a.endpoint)
	if a.advice {
		// Advice may come before the bind: it neither binds nor ends a
		// wait for the bind.
	} else if s.d.Bound = true; s.d.Announced != nil && s.d.Announced.Bind && s.d.Ready == nil && s.d.Fatal == 0 {
		if a.health {
			// A request answered: it was bound since its readiness line.
			s.confirmAnnounced(fb)
			return false
		}
		// The bind a BeforeBind ready line waited for: ready here.
		s.d.Announced = nil
		s.d.BoundUnloaded = !s.d.Loaded
		s.becomeReady(fb, *v, at, src)
		v.Kind = KindReady
		return true
	}
	if s.d.Ready != nil || familiesWithReadiness[s.d.Server] || s.d.Fatal > 0 {
		// A server that already failed fatally and then says it started
		// (DJL prints "Model server started." after its model failed to
		// load, and stops) is not believed on its word.
		return false
	}
	if w := s.d.Announced; w != nil && w.Banner && !a.health && !a.advice && !a.banner {
		// The server's own listening line after an application's banner
		// announced the same: readiness here, loaded or not (the banner
		// says the application is up; the line, that it bound).
		s.d.Announced = nil
		s.becomeReady(fb, *v, at, src)
		v.Kind = KindReady
		return true
	}
	loaded := s.loadedIn(src)
	if !a.health && (!loaded || a.advice || a.banner) {
		s.d.Announced = &pendingReady{Line: *v, At: at, Src: src, N: s.d.N, Quiet: loaded, Banner: a.banner}
		return false
	}
	if s.d.Announced != nil {
		// A health request answered after the announcement: ready since
		// the announcing line.
		s.confirmAnnounced(fb)
		return false
	}
	s.becomeReady(fb, *v, at, src)
	v.Kind = KindReady
	return true
}

// loadsAfterBind reports whether the line at seq, with its match m and
// text t, is model loading right after readiness that came at a bind with
// nothing loaded before it: a server that loads its model after its
// application started (Cog runs its predictor's setup() once uvicorn
// serves) was not ready. Readiness is kept when the line did not come
// within unreadyWindow of it, or a request was served since. The bind's
// readiness stays at once, not after quiet lines: a paste that ends at
// "Uvicorn running on" shows a server that is up.
func (s *State) loadsAfterBind(seq int64, m *lineMatch, t string) bool {
	return s.d.BoundUnloaded && s.d.Ready != nil && s.d.Fatal == 0 && seq-s.d.Ready.Seq <= unreadyWindow &&
		s.d.ServedAt <= s.d.Ready.Seq && isModelWork(t, m)
}

// servingReady reports whether a line showing the server at work (a
// request answered, throughput figures) makes a launch ready that is not:
// it announced an endpoint, loaded its model after that or before, and no
// fatal error came. A server whose endpoint opened before its model loaded
// (a frontend that waits for workers to register, Dynamo's) never says it
// is ready in words an announcement rule knows; a request served after the
// model loaded is the proof. Families with readiness lines of their own
// (familiesWithReadiness) serve warmup requests before them: not for them.
func (s *State) servingReady() bool {
	return s.d.Ready == nil && s.d.Fatal == 0 && s.d.Loaded && len(s.d.Endpoints) > 0 &&
		!familiesWithReadiness[s.d.Server]
}

// confirmAnnounced makes the waiting announcement readiness at its line.
func (s *State) confirmAnnounced(fb *feedBuf) {
	w := s.d.Announced
	s.d.Announced = nil
	s.becomeReady(fb, w.Line, w.At, w.Src)
	lv := w.Line
	lv.Kind = KindReady
	fb.revise(lv)
}

// afterAnnouncement decides a waiting announcement on each line after it,
// once the line is placed (its verdict v): loading work or an error (the
// line is in an alarm, or at an error level) means the port was opened
// before the server could serve, and the announcement stays an endpoint
// only; a request answered, or confirmAfter quiet lines, make it
// readiness at the announcing line. It also notes loading work for
// announcements still to come.
func (s *State) afterAnnouncement(fb *feedBuf, p *Prefix, m *lineMatch, v *LineVerdict, src, t string) {
	w := s.d.Announced
	pending := w != nil && w.N != s.d.N
	if !pending && s.loadedIn(src) {
		return // nothing to note or decide: no word search on this line
	}
	model := isModelWork(t, m)
	if model {
		s.modelWorkIn(src) // "model loaded in 8.1 s" too
	}
	loading := isLoadingWork(t, m) && (model || !reportsFailure(t))
	if !pending {
		return
	}
	if originOf(src) != originOf(w.Src) {
		// Another service's line: its loading or errors say that its
		// own announcement, not this one, was early; its quiet lines do
		// not say this one serves.
		w.Other++
		if loading && s.loadedIn(w.Src) {
			return
		}
		if !loading && v.Alarm == 0 && !isErrorLevel(p.Level) && m.best == nil && m.follow == nil && !m.serving {
			return
		}
	}
	switch {
	case s.d.Ready != nil || familiesWithReadiness[s.d.Server] && !w.Bind:
		s.d.Announced = nil
	case s.d.N == w.N+1 && s.d.Prompt == v.Seq:
		// The command that announced the server returned to the shell's
		// prompt at once: it started a service that runs on detached
		// ("lms server start": "Server is now running on port 1234").
		s.confirmAnnounced(fb)
	case loading || v.Alarm != 0 || isErrorLevel(p.Level) || m.best != nil || m.follow != nil:
		s.d.Announced = nil
	case m.serving || (!w.Banner && s.d.N-w.N-w.Other >= confirmAfter) || s.d.N-w.N-w.Other >= confirmAfterBanner:
		s.confirmAnnounced(fb)
	}
}

// modelWorkIn notes a line of model work on source src: the launch has
// loaded something, and so has src's origin (another compose service's
// model loading does not say that this one's port opened after its own).
func (s *State) modelWorkIn(src string) {
	s.d.Loaded = true
	o := originOf(src)
	if slices.Contains(s.d.LoadedOrigins, o) || len(s.d.LoadedOrigins) >= maxLoadedOrigins {
		return
	}
	s.d.LoadedOrigins = append(s.d.LoadedOrigins, o)
}

// loadedIn reports whether model work was seen on src's origin ("" is the
// launch's own process). Past maxLoadedOrigins origins, and in a state
// saved before origins were noted, the launch's Loaded says it.
func (s *State) loadedIn(src string) bool {
	if len(s.d.LoadedOrigins) >= maxLoadedOrigins || len(s.d.LoadedOrigins) == 0 {
		return s.d.Loaded
	}
	return slices.Contains(s.d.LoadedOrigins, originOf(src))
}

// maxLoadedOrigins bounds the origins remembered as having loaded: past
// it, every origin counts as loaded (the launch's word, as before).
const maxLoadedOrigins = 8

// loadingWords are what a server prints while it is still getting ready.
var loadingWords = []string{
	"loading", "load model", "load weight", "downloading", "fetching", "waiting for", "warming",
	"warmup", "initializ", "starting", "booting", "compil", "capturing", "model_loader", "load_tensors",
	"checkpoint", "weights", "preparing", "building", "warm",
	// a supervisor that bound the port hands it to a worker whose
	// application has yet to start (uvicorn --reload or --workers: its
	// "Uvicorn running on" comes first, then "Started reloader process
	// [N]", each worker's "Started server process [N]" and "Waiting for
	// application startup.")
	"reloader process", "parent process [", "server process [",
}

// modelWords are what a server prints about its model while it loads it:
// an announcement after one of them comes once the model is there.
// ("Starting" or "initializing" alone do not say so: OpenVINO Model Server
// starts its modules, then its gRPC server, then loads the models.)
var modelWords = []string{
	"loading", "loaded", "load model", "load weight", "weights", "model_loader", "load_tensors", "warm", "llm engine",
}

// isModelWork reports a line of model loading work: a phase, a progress
// bar or one of modelWords.
func isModelWork(t string, m *lineMatch) bool {
	if isStartupProgress(m) {
		return true
	}
	h := head(t)
	return modelSet.in(h) && !notModelSet.in(h)
}

// notModelWords are loading that is not a model's: a server that loads its
// service definition or settings before it binds has loaded no model yet
// (BentoML's "Loading service from ..." comes before its workers load it).
var notModelWords = []string{
	"loading service", "loading config", "loading settings", "loading environment", "loading the service",
	"logging config", // gunicorn's and the apps under it: "Loaded logging config from ..."
	// ggml's "load_backend: loaded CUDA backend from .../libggml-cuda.so":
	// a shared library, before any model
	"load_backend:", "backend from",
}

var (
	notModelSet = newWordSet(notModelWords)
	configSet   = newWordSet([]string{"config"})
)

// stopWords say that the server is going down: an announcement before
// them was no readiness.
var stopWords = []string{"stopped", "stopping", "shutting down", "shutdown", "exiting", "terminat"}

// isLoadingWork reports a line of startup work or of going down: a phase,
// a progress bar, one of loadingWords or stopWords.
func isLoadingWork(t string, m *lineMatch) bool {
	t = head(t)
	// Loading a configuration file ("loading a new config", reloaded
	// every few seconds by a gateway that serves) is no startup work.
	return isStartupProgress(m) || loadingSet.in(t) && !configSet.in(t) || stopSet.in(t)
}

// isStartupProgress reports a phase line or a progress bar.
func isStartupProgress(m *lineMatch) bool {
	return len(m.phases) > 0 || m.builtin[litBar] || m.builtin[litItS] || m.builtin[litSIt]
}

// reportsFailure reports a line that says something failed ("An error
// occurred while fetching the node list: cannot connect"): a failed fetch
// of anything but the model is no startup work still going on, and at a
// level below ERROR it does not say the port opened too early either
// (ComfyUI-Manager's registry fetch failing after "To see the GUI go to").
func reportsFailure(t string) bool {
	h := head(t)
	return indexFold(h, "error") >= 0 || failureSet.in(h)
}

// head is the first 512 bytes of t, where a line says what it is about.
func head(t string) string { return truncate(t, 512) }

// wordSet finds any of a list of words in a line, ignoring ASCII case, in
// one pass of the literal prefilter's matcher: the lists here are searched
// on many lines, and a search per word cost more than the rest of a line's
// classification.
type wordSet struct{ m *matcher }

func newWordSet(words []string) wordSet { return wordSet{m: newMatcher(words)} }

// in reports whether t contains one of the words.
func (w wordSet) in(t string) bool {
	found := false
	w.m.scan(t, func(int32) { found = true })
	return found
}
