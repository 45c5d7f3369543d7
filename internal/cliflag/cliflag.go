// Package cliflag prints flag.FlagSet usage the way people type flags:
// GNU-style --name, which Go's flag package accepts.
package cliflag

import (
	"flag"
	"fmt"
	"io"
)

// PrintDefaults lists the flags of fs as "--name value" with their help and
// defaults. Flags named in secret have their default hidden: it may come
// from the environment and hold a password or token.
func PrintDefaults(w io.Writer, fs *flag.FlagSet, secret ...string) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  --%s", f.Name)
		if name != "" {
			fmt.Fprintf(w, " %s", name)
		}
		fmt.Fprintf(w, "\n    \t%s", usage)
		hidden := false
		for _, s := range secret {
			hidden = hidden || s == f.Name
		}
		if f.DefValue != "" && f.DefValue != "false" && !hidden {
			fmt.Fprintf(w, " (default %q)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}
