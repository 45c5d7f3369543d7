// Package auth is who may do what in Launchwatch: roles of people, scopes
// of API tokens, the access level each route needs, and the secrets that
// prove a principal (passwords, session and token secrets). It holds no
// SQL and does no I/O: internal/store keeps the accounts, internal/web
// asks this package whether a request may go on.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
)

// Level is what a route needs, and what a principal has. Levels are not one
// chain: ingest is the shippers' own level, beside read; review includes
// read; admin includes everything.
type Level int

// The levels, from none to all.
const (
	Public Level = iota // anyone, signed in or not: health, static files, sign-in
	Ingest              // ship lines and process reports, read its own launches' status
	Read                // every page and read API
	Review              // decide, annotate, rules scoped to a server or a label
	Admin               // users, tokens, rules for all launches, deleting

	// LaunchStatus is a route need, never held: read, or ingest. A shipper's
	// token may read the status of a launch (one launch's JSON and its live
	// socket), so `launchwatch run` and `wait` give a verdict with the token
	// that ships; it still cannot list launches, read lines or pages.
	LaunchStatus
)

var levelNames = map[Level]string{Public: "public", Ingest: "ingest", Read: "read", Review: "review", Admin: "admin",
	LaunchStatus: "read or ingest"}

func (l Level) String() string {
	if s, ok := levelNames[l]; ok {
		return s
	}
	return fmt.Sprintf("level(%d)", int(l))
}

// Allows reports whether a principal holding l may use a route needing
// need. Read, review and admin each include the ones before them; ingest is
// included only by admin, and includes nothing but itself: a token that
// ships logs cannot read every launch, and a read token cannot forge lines.
func (l Level) Allows(need Level) bool {
	switch {
	case need == Public:
		return true
	case l == LaunchStatus || l == Public:
		return false // nobody holds these
	case need == LaunchStatus:
		return l == Ingest || l >= Read
	case l == Admin:
		return true
	case need == Ingest:
		return l == Ingest
	case l == Ingest:
		return false
	}
	return l >= need
}

// Scopes are the levels an API token may be given, by the names of the
// tokens API.
var Scopes = map[string]Level{"ingest": Ingest, "read": Read, "review": Review, "admin": Admin}

// Roles are the levels a person may be given.
var Roles = map[string]Level{"viewer": Read, "reviewer": Review, "admin": Admin}

// RoleName is the role of a person at level l ("" for levels that are not
// roles).
func RoleName(l Level) string {
	for name, rl := range Roles {
		if rl == l {
			return name
		}
	}
	return ""
}

// ParseScope returns the level of a token scope name.
func ParseScope(s string) (Level, error) {
	if l, ok := Scopes[s]; ok {
		return l, nil
	}
	return Public, fmt.Errorf("scope must be ingest, read, review or admin, not %q", s)
}

// ParseRole returns the level of a role name.
func ParseRole(s string) (Level, error) {
	if l, ok := Roles[s]; ok {
		return l, nil
	}
	return Public, fmt.Errorf("role must be viewer, reviewer or admin, not %q", s)
}

// tokenPrefix marks Launchwatch's secrets, so secret scanners and people
// recognise one in a log or a repository.
const tokenPrefix = "lw_"

// NewSecret returns a fresh random secret for a token, a session or a
// setup link: 32 random bytes, URL-safe.
func NewSecret() string {
	b := make([]byte, 32)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read never fails (Go ≥ 1.24)
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// HashSecret is what the database keeps of a secret. Secrets we make are
// 256-bit random, so SHA-256 is enough; a configured bootstrap token is as
// strong as whoever chose it (the server warns when it is short).
func HashSecret(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// LooksLikeSecret reports whether s could be a secret at all, so a request
// with an absurd Authorization header is refused before any lookup.
func LooksLikeSecret(s string) bool {
	return s != "" && len(s) <= 512 && !strings.ContainsAny(s, " \t\r\n")
}
