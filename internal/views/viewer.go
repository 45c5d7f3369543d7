package views

import (
	"context"
	"io"

	"github.com/a-h/templ"
)

// Viewer is who is looking at a page: the signed-in user or the API
// token's name, their role, and the CSRF token every form of the page must
// send back. The web package puts it into the request's context once the
// request is authenticated; pages read it from there, so no page's props
// need to carry it.
type Viewer struct {
	Name string // "" when nobody is signed in
	Role string // viewer, reviewer or admin ("" when nobody is signed in)
	// CSRF is the token forms send as the csrf_token field and htmx as the
	// X-CSRF-Token header (static/csrf.js reads it from the page's meta).
	CSRF string
	// Session is true for a browser session (which can sign out), false for
	// an API token or a reverse proxy's header.
	Session bool
}

type viewerKey struct{}

// WithViewer returns ctx carrying v.
func WithViewer(ctx context.Context, v Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// ViewerOf returns the viewer ctx carries (the zero Viewer when none).
func ViewerOf(ctx context.Context) Viewer {
	v, _ := ctx.Value(viewerKey{}).(Viewer)
	return v
}

// roleRank orders roles so that a page can ask whether the viewer may do
// what a role may.
var roleRank = map[string]int{"viewer": 1, "reviewer": 2, "admin": 3}

// Can reports whether the viewer's role includes role.
func (v Viewer) Can(role string) bool {
	return roleRank[v.Role] >= roleRank[role] && roleRank[role] > 0
}

// CSRFField is the hidden field every state-changing form carries.
func CSRFField() templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		_, err := io.WriteString(w, `<input type="hidden" name="csrf_token" value="`+templ.EscapeString(ViewerOf(ctx).CSRF)+`"/>`)
		return err
	})
}
