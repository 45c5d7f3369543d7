package eval

import (
	"fmt"
	"strings"
	"time"
)

// Envelopes are the collector envelopes Wrap knows, as ../shared/tools/perturb.py
// writes them: what Kubernetes (CRI), docker compose, journald and
// `kubectl logs --prefix` put in front of every line a server prints.
var Envelopes = []string{"k8s", "compose", "journald", "kubectl"}

// Wrap returns the lines of a log as a collector would have stored them:
// each line i (0-based) of the case named name gets the envelope kind in
// front of it, exactly as perturb.py does, so the labels stay valid.
func Wrap(kind, name string, lines []string) ([]string, error) {
	family, _, _ := strings.Cut(name, "-")
	base := time.Date(2026, 1, 28, 10, 4, 5, 0, time.UTC)
	out := make([]string, len(lines))
	for i, l := range lines {
		t := base.Add(time.Duration(37*i) * time.Millisecond)
		switch kind {
		case "k8s":
			out[i] = t.Format("2006-01-02T15:04:05.") + fmt.Sprintf("%06d123Z stdout F ", t.Nanosecond()/1000) + l
		case "compose":
			out[i] = family + "-1  | " + l
		case "journald":
			out[i] = t.Format("Jan 02 15:04:05") + " gpu-7 " + family + "[12345]: " + l
		case "kubectl":
			out[i] = "[pod/" + family + "-0/server] " + l
		default:
			return nil, fmt.Errorf("unknown envelope %q (want one of %s)", kind, strings.Join(Envelopes, ", "))
		}
	}
	return out, nil
}
