package classify

import (
	"regexp"
	"slices"
	"strings"
)

// Services beside the model server. A launch's log often holds the output
// of a whole stack (docker compose, a pod's containers, a Slurm job's
// tasks): a database, a message bus, an object store, a proxy, a web UI.
// They say "listening", "ready to accept connections" or "Application
// startup complete." long before the model server does, and none of that
// is the launch's readiness.

// aside reports whether the line (its prefix p, source src, text t) is a
// service's beside the model server, whose readiness is not the launch's:
//   - its origin's name is a well-known dependency's (the compose service
//     "db-1", the pod "dify-postgresql-0", the unit "redis-server"), the
//     log has other origins (a log of one service is that service's), and
//     its lines never showed a model server family's wording, or
//     its source printed a dependency's own start-up line before
//     (dependencySet: PostgreSQL's "database system is ready to accept
//     connections", NATS's "Listening for client connections");
//   - or another origin of the log has loaded a model and this one has
//     not: a web UI's or a RAG API's uvicorn, up before the model server
//     it fronts (a family's own readiness line still counts).
func (s *State) aside(p *Prefix, m *lineMatch, src, t string) bool {
	if s.d.SidecarPid != "" && uvicornReadiness(t) {
		return true
	}
	if s.d.ManyOrigins && dependencyOrigin(p.Origin) && !s.anyFamilyIn(s.originKey(p)) || s.isDependencySource(src) {
		return true
	}
	if dependencySet.in(head(t)) {
		s.noteDependency(src)
		return true
	}
	if m.ready != nil && m.ready.Family != "" && m.ready.Family == s.d.Server {
		return false
	}
	return s.notTheServersOrigin(p) || s.loadedElsewhere(src)
}

// famOrigin is an origin whose lines showed a family's own wording.
type famOrigin struct {
	Origin string `json:"origin"` // as in LoadedOrigins: "" for the log's first
	Family string `json:"family"`
}

// maxFamOrigins bounds the origins remembered with their family.
const maxFamOrigins = 8

// originKey is the origin of a line as LoadedOrigins name it: "" for the
// log's first origin (the launch's own process) and lines without one.
func (s *State) originKey(p *Prefix) string {
	if p.Origin == s.d.Origin {
		return ""
	}
	return p.Origin
}

// noteFamilyOrigin remembers the origin of a line that carries a family's
// own prefix or wording (a detect signature that is no mere mention), once
// per origin and family. It returns prefixFamily(p) when it read it (read),
// so that observeFamily does not read it again.
func (s *State) noteFamilyOrigin(p *Prefix) (pf string, read bool) {
	if len(s.d.FamOrigins) >= maxFamOrigins {
		return "", false
	}
	o := s.originKey(p)
	if s.d.Server != "" && s.familyIn(o, s.d.Server) {
		return "", false // every line of a wrapped log has an origin: no work once it is known
	}
	pf = prefixFamily(p)
	f := pf
	if f == "" {
		for _, si := range s.h.sigs {
			if g := s.rs.sigs[si]; g.Role == RoleDetect && g.Family != "" && g.weight() >= 3 && g.confirm(p, "") {
				f = g.Family
				break
			}
		}
	}
	if f != "" && !s.familyIn(o, f) {
		s.d.FamOrigins = append(s.d.FamOrigins, famOrigin{Origin: o, Family: f})
	}
	return pf, true
}

// anyFamilyIn reports whether origin o showed a model server family's
// wording: whatever its name says ("db-1"), it runs a model server.
func (s *State) anyFamilyIn(o string) bool {
	for _, fo := range s.d.FamOrigins {
		if fo.Origin == o {
			return true
		}
	}
	return false
}

// familyIn reports whether origin o showed family f's wording.
func (s *State) familyIn(o, f string) bool {
	return slices.Contains(s.d.FamOrigins, famOrigin{Origin: o, Family: f})
}

// notTheServersOrigin reports a readiness line, in a log of several
// origins, from one that is not where the launch's server runs: the family
// is known (given, or detected), and the line's origin never showed its
// wording while another did or, while none did yet, it is not the log's
// first, or it showed another family's. A gateway's or a UI's uvicorn in
// the same compose project (LiteLLM in front of vLLM) says "Application
// startup complete." before the model server has printed a line, and an
// embedding server beside it (TEI) is ready first. The family's own readiness line always
// counts (aside).
func (s *State) notTheServersOrigin(p *Prefix) bool {
	if !s.servicesApart(p) {
		return false
	}
	return s.serverSeenElsewhere(p) || s.originKey(p) != "" || s.otherFamilyIn(s.originKey(p))
}

// otherFamilyIn reports whether origin o showed another family's wording
// than the launch's (an embedding server's beside the LLM server).
func (s *State) otherFamilyIn(o string) bool {
	for _, fo := range s.d.FamOrigins {
		if fo.Origin == o && fo.Family != s.d.Server {
			return true
		}
	}
	return false
}

// besideServer reports a line, in a log of several services, from one
// that never showed the launch's family while another did: an error there
// (a gateway's failed request to a model server still loading, a client's
// traceback) is that service's, never the launch's death.
func (s *State) besideServer(p *Prefix) bool {
	return s.servicesApart(p) && s.serverSeenElsewhere(p)
}

// servicesApart reports whether the line is one of a log of several
// services (compose services, a pod's containers, a host's units) whose
// family is known and whose origin never showed it.
func (s *State) servicesApart(p *Prefix) bool {
	if !s.d.ManyOrigins || s.d.Server == "" || !serviceOrigin(p.Origin) || len(s.d.FamOrigins) >= maxFamOrigins {
		return false
	}
	return !s.familyIn(s.originKey(p), s.d.Server)
}

// serverSeenElsewhere reports whether another origin than the line's
// showed the launch's family.
func (s *State) serverSeenElsewhere(p *Prefix) bool {
	o := s.originKey(p)
	for _, fo := range s.d.FamOrigins {
		if fo.Family == s.d.Server && fo.Origin != o {
			return true
		}
	}
	return false
}

// serviceOrigin reports an origin that names a service: a compose
// service, a pod's container, a unit. Not a Slurm task ("task3": the same
// program on another node) nor a process id ("host/vllm[123]": the same
// unit, maybe started again): those run the server too, and may fail
// before they print its wording. Of nested envelopes ("host/unit[7]|web-1")
// the innermost tells.
func serviceOrigin(o string) bool {
	o = o[strings.LastIndexByte(o, '|')+1:]
	if o == "" || strings.IndexByte(o, '[') >= 0 {
		return false
	}
	return !strings.HasPrefix(o, "task") || !allDigits(o[len("task"):])
}

// loadedElsewhere reports whether an origin other than src's loaded a
// model while src's did not. A dependency's loading (Prometheus's
// "Completed loading of configuration file", printed before the model
// server's first line) is no model's, in a log of several services.
func (s *State) loadedElsewhere(src string) bool {
	if len(s.d.LoadedOrigins) == 0 || len(s.d.LoadedOrigins) >= maxLoadedOrigins || s.loadedIn(src) {
		return false
	}
	if !s.d.ManyOrigins {
		return true
	}
	for _, o := range s.d.LoadedOrigins {
		if !dependencyOrigin(o) {
			return true
		}
	}
	return false
}

// dependencyOrigin reports an origin whose name has a dependency's word
// as one of its parts ("db-1", "milvus-standalone", "redis-server[812]");
// of kubectl's "pod/NAME/CONTAINER", the container's ("postgresql" in
// "pod/dify-postgresql-0/postgresql"; a gateway's "pod/envoy-aigw-0/extproc"
// is no proxy's output).
func dependencyOrigin(origin string) bool {
	if origin == "" {
		return false
	}
	if strings.HasPrefix(origin, "pod/") {
		origin = origin[strings.LastIndexByte(origin, '/')+1:]
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(origin), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if dependencyNames[strings.TrimRight(w, "0123456789")] {
			return true
		}
	}
	return false
}

// dependencyNames are the parts of a service's name that say it is a
// store, a bus, a proxy or a monitor beside the model server.
var dependencyNames = map[string]bool{
	"db": true, "database": true, "postgres": true, "postgresql": true, "pg": true, "pgvector": true,
	"mysql": true, "mariadb": true, "mongo": true, "mongodb": true, "redis": true, "valkey": true,
	"memcached": true, "nats": true, "etcd": true, "minio": true, "milvus": true, "qdrant": true,
	"weaviate": true, "chroma": true, "chromadb": true, "elasticsearch": true, "opensearch": true,
	"meilisearch": true, "clickhouse": true, "rabbitmq": true, "kafka": true, "zookeeper": true,
	"nginx": true, "traefik": true, "caddy": true, "haproxy": true, "squid": true,
	"prometheus": true, "grafana": true, "jaeger": true, "loki": true, "promtail": true,
}

// dependencyLines are start-up lines only a dependency prints (Redis's
// "* Ready to accept connections tcp" with its marker: a model server's
// own "Server is ready to accept connections" is its readiness).
var dependencyLines = []string{
	"database system is ready to accept connections", "listening on ipv4 address", "listening on ipv6 address",
	"listening on unix socket", "* ready to accept connections", "listening for client connections on",
	"listening for route connections", "ready to serve client requests", "serving client traffic",
	"qdrant http listening", "qdrant grpc listening", "minio object storage server", "start worker process",
	"waiting for connections", "server startup complete", "kafkaserver id=",
}

var dependencySet = newWordSet(dependencyLines)

func (s *State) isDependencySource(src string) bool { return slices.Contains(s.d.DepSources, src) }

func (s *State) noteDependency(src string) {
	if !s.isDependencySource(src) && len(s.d.DepSources) < maxDepSources {
		s.d.DepSources = append(s.d.DepSources, src)
	}
}

// maxDepSources bounds the sources remembered as dependencies.
const maxDepSources = 8

// program is one program a supervisor started, by name and pid.
type program struct {
	Name string `json:"name"`
	Pid  string `json:"pid"`
}

// maxPrograms bounds the programs a launch remembers.
const maxPrograms = 8

var (
	reSpawned       = regexp.MustCompile(`\bspawned: '([^']+)' with pid (\d+)`)
	reUvicornServer = regexp.MustCompile(`^(?:INFO:\s+)?(Started|Finished) server process \[(\d+)\]`)
)

// notePrograms reads a supervisor's start of a program (m.spawn:
// "spawned: 'gateway' with pid 8") and uvicorn's "Started server process
// [8]": when the uvicorn now starting is a supervised program's whose name
// is not the launch's family (a gateway in front of LMDeploy in one
// container) while another program's name is, the readiness lines that
// uvicorn prints next are that sidecar's (aside), until the next uvicorn
// starts or stops.
func (s *State) notePrograms(m *lineMatch, body string) {
	if m.spawn {
		if g := reSpawned.FindStringSubmatch(body); g != nil && len(s.d.Programs) < maxPrograms {
			s.d.Programs = append(s.d.Programs, program{Name: g[1], Pid: g[2]})
		}
		return
	}
	if len(s.d.Programs) == 0 || !strings.Contains(body, " server process [") {
		return
	}
	g := reUvicornServer.FindStringSubmatch(strings.TrimSpace(body))
	if g == nil {
		return
	}
	s.d.SidecarPid = ""
	if g[1] != "Started" {
		return
	}
	var sidecar, family bool
	for _, pr := range s.d.Programs {
		named := s.servesModel(pr.Name)
		family = family || named
		sidecar = sidecar || pr.Pid == g[2] && !named
	}
	if sidecar && family {
		s.d.SidecarPid = g[2]
	}
}

// servesModel reports a supervised program's name that names the launch's
// family, or, while the family is not known yet, any model server's.
func (s *State) servesModel(name string) bool {
	name = strings.ToLower(name)
	if s.d.Server != "other" {
		return strings.Contains(name, s.d.Server)
	}
	for _, f := range modelServerNames {
		if strings.Contains(name, f) {
			return true
		}
	}
	return false
}

// modelServerNames are words in the names under which supervisors run model
// servers (a program "sglang-server", "vllm", "llama-server", "tgi").
var modelServerNames = []string{"sglang", "vllm", "lmdeploy", "tgi", "text-generation", "trtllm", "tensorrt", "triton", "ollama", "llama", "infer", "model", "serve"}

// uvicornReadiness reports uvicorn's own readiness lines.
func uvicornReadiness(t string) bool {
	t = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "INFO:"))
	return strings.HasPrefix(t, "Application startup complete.") || strings.HasPrefix(t, "Uvicorn running on ")
}
