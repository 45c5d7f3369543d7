package auth

import (
	"errors"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
)

// MinPasswordLen is the shortest password accepted: NIST SP 800-63B's
// minimum for a chosen secret.
const MinPasswordLen = 8

// ErrWrongPassword is returned when a password does not match its hash.
var ErrWrongPassword = errors.New("auth: wrong password")

// Hasher hashes and checks passwords with bcrypt at a cost: DefaultCost in
// the server, bcrypt.MinCost in tests that create many users.
type Hasher struct{ Cost int }

// CheckPasswordRules returns why a new password is not acceptable, "" when
// it is.
func CheckPasswordRules(pw string) string {
	switch {
	case utf8.RuneCountInString(pw) < MinPasswordLen:
		return "a password needs at least 8 characters"
	case len(pw) > 72:
		// bcrypt reads only the first 72 bytes; a longer one would give a
		// false sense of strength.
		return "a password may have at most 72 bytes"
	}
	return ""
}

// Hash returns the bcrypt hash of pw.
func (h Hasher) Hash(pw string) (string, error) {
	cost := h.Cost
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	b, err := bcrypt.GenerateFromPassword([]byte(pw), cost)
	return string(b), err
}

// Check returns nil when pw matches hash, ErrWrongPassword otherwise.
func (h Hasher) Check(hash, pw string) error {
	if err := bcrypt.CompareHashAndPassword([]byte(hash), []byte(pw)); err != nil {
		return ErrWrongPassword
	}
	return nil
}

// dummyHash is checked against when a sign-in names no user, so that an
// unknown name takes as long as a wrong password (no user enumeration by
// timing).
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("launchwatch-no-such-user"), bcrypt.DefaultCost)

// CheckNobody spends the time of one password check and fails.
func (h Hasher) CheckNobody(pw string) error {
	bcrypt.CompareHashAndPassword(dummyHash, []byte(pw)) //nolint:errcheck // always fails
	return ErrWrongPassword
}
