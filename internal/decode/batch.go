package decode

import (
	"sort"
	"strings"

	"launchwatch/internal/launchid"
)

// Batch is the lines of one launch decoded from a request of a shipper
// protocol (Loki, OTLP); one request may carry several launches.
type Batch struct {
	Key   string
	Attrs launchid.Attrs
	Lines []Line
}

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
func attrsFrom(kv map[string]string, serverKeys, hostKeys, nameKeys, skip []string) launchid.Attrs {
	var a launchid.Attrs
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
	if s := strings.ToLower(pick(serverKeys)); launchid.ServerPattern.MatchString(s) {
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
		if !launchid.LabelKeyPattern.MatchString(k) || v == "" {
			continue
		}
		if a.Labels == nil {
			a.Labels = map[string]string{}
		}
		if len(a.Labels) == MaxBatchLabels {
			break
		}
		a.Labels[k] = v
	}
	return a
}
