package views

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryPostFormCarriesTheCSRFToken reads every template: a form that
// posts must hold @CSRFField() among its first lines, or a signed-in
// browser's post is refused. Sign-in and setup come before any session.
func TestEveryPostFormCarriesTheCSRFToken(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates: %v", err)
	}
	post := regexp.MustCompile(`<form\b[^>]*method="post"`)
	forms := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			if !post.MatchString(l) || strings.Contains(l, `action="/login"`) || strings.Contains(l, `action="/setup"`) {
				continue
			}
			forms++
			if !strings.Contains(strings.Join(lines[i+1:min(i+4, len(lines))], "\n"), "@CSRFField()") {
				t.Errorf("%s:%d: a post form without @CSRFField(): %s", f, i+1, strings.TrimSpace(l))
			}
		}
	}
	if forms < 10 {
		t.Errorf("found only %d post forms; the pattern no longer sees them", forms)
	}
}
