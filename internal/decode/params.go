package decode

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"launchwatch/internal/launchid"
)

// The rules for what names a launch and describes it (package launch) as
// the decoders apply them. The native API checks its parameters with them
// and refuses what breaks them; the shipper protocols map their labels and
// attributes onto them and leave out what cannot be mapped, since the lines
// matter more than their labels.

// MaxBatchLabels bounds the launch labels one batch sets: more label.K=V
// parameters are refused; a stream or resource with more keeps the first
// by name.
const MaxBatchLabels = 32

// maxTZBytes bounds a tz parameter (the longest IANA names are ~30 bytes).
const maxTZBytes = 64

// isOneLine reports whether v is at most 200 bytes of valid text on one line.
func isOneLine(v string) bool {
	return len(v) <= 200 && utf8.ValidString(v) && !strings.ContainsAny(v, "\x00\n\r")
}

// oneLine keeps v when it is at most 200 bytes of valid text on one line.
func oneLine(v string) string {
	if !isOneLine(v) {
		return ""
	}
	return v
}

// LaunchKeyParam reads a launch key from raw, a URL path segment.
func LaunchKeyParam(raw string) (string, error) {
	key, err := url.PathUnescape(raw)
	if err != nil || !launchid.KeyPattern.MatchString(key) {
		return "", BadRequest("launch key %q is not valid: use 1 to 200 letters, digits and . _ : @ + = -, starting with a letter or digit", raw)
	}
	return key, nil
}

// launchid.Attrs reads server, host, name, tz and label.K=V query parameters.
func LaunchAttrs(q url.Values) (launchid.Attrs, error) {
	a := launchid.Attrs{
		Server: strings.ToLower(strings.TrimSpace(q.Get("server"))),
		Host:   strings.TrimSpace(q.Get("host")),
		Name:   strings.TrimSpace(q.Get("name")),
		TZ:     strings.TrimSpace(q.Get("tz")),
	}
	if a.TZ != "" {
		if _, err := ParseTZ(a.TZ); err != nil || len(a.TZ) > maxTZBytes {
			return a, BadRequest("tz %q is not valid: use an IANA zone name (Europe/Berlin) or an offset such as +02:00", a.TZ)
		}
	}
	if a.Server != "" && !launchid.ServerPattern.MatchString(a.Server) {
		return a, BadRequest("server %q is not valid: use a short name such as sglang, vllm or tgi", a.Server)
	}
	for field, v := range map[string]string{"host": a.Host, "name": a.Name} {
		if !isOneLine(v) {
			return a, BadRequest("%s must be at most 200 bytes of text on one line", field)
		}
	}
	for k, vs := range q {
		name, ok := strings.CutPrefix(k, "label.")
		if !ok {
			continue
		}
		if !launchid.LabelKeyPattern.MatchString(name) {
			return a, BadRequest("label name %q is not valid: use letters, digits, _ . -", name)
		}
		v := vs[len(vs)-1]
		if !isOneLine(v) {
			return a, BadRequest("label %s must be at most 200 bytes of text on one line", name)
		}
		if a.Labels == nil {
			a.Labels = map[string]string{}
		}
		if len(a.Labels) == MaxBatchLabels {
			return a, BadRequest("at most %d labels per batch", MaxBatchLabels)
		}
		a.Labels[name] = v
	}
	return a, nil
}

// IntParam reads an optional integer query parameter in [min, max].
func IntParam(q url.Values, name string, def, min, max int64) (int64, error) {
	s := q.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < min || n > max {
		return 0, BadRequest("%s must be an integer from %d to %d, got %q", name, min, max, s)
	}
	return n, nil
}

// MaxSeq is the highest seq a line may have: what a JSON number holds
// exactly (2^53), so every client reads a seq back as it sent it.
const MaxSeq = 1 << 53

// MaxSeqText is MaxSeq as the error messages state it.
const MaxSeqText = "2^53 (9007199254740992)"

// SeqAboveMax is the error of a batch whose seqs go above MaxSeq; what
// names the seq ("seq 9007199254740993", "line 3's seq ...").
func SeqAboveMax(what string) *InputError {
	return BadRequest("%s is above %s, the highest seq: number lines from 1 up", what, MaxSeqText)
}
