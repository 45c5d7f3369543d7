package auth

import (
	"testing"
	"time"
)

// TestLevelAllows is the scope table the README documents.
func TestLevelAllows(t *testing.T) {
	held := []Level{Public, Ingest, Read, Review, Admin}
	needs := []Level{Public, Ingest, LaunchStatus, Read, Review, Admin}
	want := map[Level]map[Level]bool{
		Public: {Public: true},
		Ingest: {Public: true, Ingest: true, LaunchStatus: true},
		Read:   {Public: true, LaunchStatus: true, Read: true},
		Review: {Public: true, LaunchStatus: true, Read: true, Review: true},
		Admin:  {Public: true, Ingest: true, LaunchStatus: true, Read: true, Review: true, Admin: true},
	}
	for _, h := range held {
		for _, n := range needs {
			if got := h.Allows(n); got != want[h][n] {
				t.Errorf("%v.Allows(%v) = %v, want %v", h, n, got, want[h][n])
			}
		}
	}
}

func TestParseScopeAndRole(t *testing.T) {
	for name, l := range Scopes {
		if got, err := ParseScope(name); err != nil || got != l {
			t.Errorf("ParseScope(%q) = %v, %v", name, got, err)
		}
	}
	for _, bad := range []string{"", "Admin", "write", "viewer"} {
		if _, err := ParseScope(bad); err == nil {
			t.Errorf("ParseScope(%q) accepted", bad)
		}
	}
	if l, err := ParseRole("reviewer"); err != nil || l != Review || RoleName(l) != "reviewer" {
		t.Errorf("ParseRole(reviewer) = %v, %v", l, err)
	}
	if _, err := ParseRole("ingest"); err == nil {
		t.Error("ingest is not a role of a person")
	}
}

func TestSecrets(t *testing.T) {
	a, b := NewSecret(), NewSecret()
	if a == b || len(a) < 40 || !LooksLikeSecret(a) {
		t.Fatalf("secrets %q %q", a, b)
	}
	if string(HashSecret(a)) == string(HashSecret(b)) || len(HashSecret(a)) != 32 {
		t.Error("hashes of different secrets must differ")
	}
	for _, bad := range []string{"", "a b", string(make([]byte, 600))} {
		if LooksLikeSecret(bad) {
			t.Errorf("LooksLikeSecret(%q)", bad)
		}
	}
}

func TestPasswords(t *testing.T) {
	h := Hasher{Cost: 4}
	hash, err := h.Hash("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Check(hash, "correct horse"); err != nil {
		t.Errorf("right password refused: %v", err)
	}
	if err := h.Check(hash, "correct horsE"); err != ErrWrongPassword {
		t.Errorf("wrong password: %v", err)
	}
	if h.CheckNobody("x") != ErrWrongPassword {
		t.Error("CheckNobody must fail")
	}
	if CheckPasswordRules("short") == "" || CheckPasswordRules(string(make([]byte, 73))) == "" || CheckPasswordRules("long enough") != "" {
		t.Error("password rules")
	}
}

func TestLoginLimiter(t *testing.T) {
	l := NewLoginLimiter(3, time.Minute)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 3; i++ {
		if w := l.Wait("ip", now); w != 0 {
			t.Fatalf("attempt %d must go at once, waits %v", i, w)
		}
		l.Fail("ip", now)
	}
	if w := l.Wait("ip", now); w != time.Minute {
		t.Fatalf("after 3 failures wait %v, want 1m", w)
	}
	if w := l.Wait("other", now); w != 0 {
		t.Fatalf("another key waits %v", w)
	}
	if w := l.Wait("ip", now.Add(30*time.Second)); w != 30*time.Second {
		t.Fatalf("half refilled: wait %v", w)
	}
	if w := l.Wait("ip", now.Add(time.Minute)); w != 0 {
		t.Fatalf("refilled: wait %v", w)
	}
	l.Fail("ip", now.Add(time.Minute))
	l.Succeed("ip")
	if w := l.Wait("ip", now.Add(time.Minute)); w != 0 {
		t.Fatalf("a success forgets: wait %v", w)
	}
}
