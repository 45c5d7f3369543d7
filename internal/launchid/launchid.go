// Package launchid holds what names a launch and describes it: the rules for
// its key, its server kind and its labels, and the attributes a shipper
// sends with its lines. It is a leaf: the server's decoders and store and
// the command line (which goes onto GPU hosts and links no database code)
// share it.
package launchid

import "regexp"

// KeyPattern is what a launch key may look like: it appears in URLs, file
// names and shell commands, so it is kept to a safe alphabet.
var KeyPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@+=-]{0,199}$`)

// ServerPattern is what a server kind may look like (sglang, vllm, tgi).
var ServerPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,39}$`)

// LabelKeyPattern is what a launch label name may look like.
var LabelKeyPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,62}$`)

// Attrs are the attributes a batch of lines gives its launch.
type Attrs struct {
	Name   string
	Server string
	Host   string
	Labels map[string]string
	// TZ is the shipper's --tz: the zone the host writes its log times in
	// without an offset (an IANA name or ±hh:mm); it overrides the
	// estimated clock offset.
	TZ string
}
