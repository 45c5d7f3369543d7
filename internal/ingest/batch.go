package ingest

import (
	"cmp"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"launchwatch/internal/store"
)

// Batch is the lines of one launch decoded from a request of a shipper
// protocol (Loki, OTLP); one request may carry several launches.
type Batch struct {
	Key   string
	Attrs store.LaunchAttrs
	Lines []Line
}

// LaunchKeyPattern is what a launch key may look like: it appears in URLs,
// file names and shell commands, so it is kept to a safe alphabet.
var LaunchKeyPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@+=-]{0,199}$`)

// ServerPattern is what a server kind may look like (sglang, vllm, tgi).
var ServerPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,39}$`)

// labelKeyPattern is what a launch label name may look like.
var labelKeyPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,62}$`)

// maxBatchLabels bounds the launch labels taken from one stream or resource.
const maxBatchLabels = 32

// launchKeyFrom turns a label or attribute value into a launch key: the
// characters a key cannot hold become '_', leading ones are dropped, and it
// is cut to 200 bytes.
// Shippers name streams freely (job="varlogs/app"), so this maps rather
// than rejects; "" means there is nothing to map.
func launchKeyFrom(v string) string {
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	// A key starts with a letter or digit: drop what comes before one.
	i := 0
	for i < len(v) && !alnum(v[i]) {
		i++
	}
	b := []byte(strings.TrimSpace(v[i:]))
	for i, c := range b {
		if !alnum(c) && strings.IndexByte("._:@+=-", c) < 0 {
			b[i] = '_'
		}
	}
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}

// attrsFrom builds launch attributes from a stream's labels or a
// resource's attributes: server and host from the named keys, the rest as
// labels (those launch labels cannot hold are left out, never rejected:
// the lines matter more than their labels).
func attrsFrom(kv map[string]string, serverKeys, hostKeys, nameKeys, skip []string) store.LaunchAttrs {
	var a store.LaunchAttrs
	used := map[string]bool{}
	for _, k := range skip {
		used[k] = true
	}
	pick := func(keys []string) string {
		for _, k := range keys {
			if v, ok := kv[k]; ok {
				used[k] = true
				if v != "" {
					return v
				}
			}
		}
		return ""
	}
	if s := strings.ToLower(pick(serverKeys)); ServerPattern.MatchString(s) {
		a.Server = s
	}
	a.Host = oneLine(pick(hostKeys))
	a.Name = oneLine(pick(nameKeys))
	names := make([]string, 0, len(kv))
	for k := range kv {
		if !used[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		v := oneLine(kv[k])
		if !labelKeyPattern.MatchString(k) || v == "" {
			continue
		}
		if a.Labels == nil {
			a.Labels = map[string]string{}
		}
		if len(a.Labels) == maxBatchLabels {
			break
		}
		a.Labels[k] = v
	}
	return a
}

// oneLine keeps v when it is at most 200 bytes of valid text on one line.
func oneLine(v string) string {
	if len(v) > 200 || !utf8.ValidString(v) || strings.ContainsAny(v, "\x00\n\r") {
		return ""
	}
	return v
}

// orderSeqless puts the seqless lines of one launch of a request (a Loki
// push, an OTLP export) in the order they are numbered in: by time, so two
// bursts a client sent out of order, or two streams of one launch
// (stdout and stderr), are stored in time order; lines of one time by
// stream, in order of first appearance, then in request order. A line
// without a time sorts at the time of the line before it in its stream,
// so it stays beside its neighbours.
func orderSeqless(lines []Line) {
	if len(lines) < 2 {
		return
	}
	type place struct {
		at  time.Time
		pos int
	}
	keys := make([]place, len(lines))
	last := map[int]time.Time{}
	sorted := true
	for i, l := range lines {
		at := l.TS
		if at.IsZero() {
			at = last[l.group]
		}
		last[l.group] = at
		keys[i] = place{at: at, pos: i}
		if i > 0 && (at.Before(keys[i-1].at) || at.Equal(keys[i-1].at) && l.group < lines[i-1].group) {
			sorted = false
		}
	}
	if sorted { // the usual case: one stream, in time order
		return
	}
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := keys[a].at.Compare(keys[b].at); c != 0 {
			return c
		}
		if c := cmp.Compare(lines[a].group, lines[b].group); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	out := make([]Line, len(lines))
	for i, j := range idx {
		out[i] = lines[j]
	}
	copy(lines, out)
}
