package classify

import "testing"

// An exit report names what exited in one word right before the phrase,
// and the status ends the line; a status inside a sentence is not one.
func TestIsExitReport(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{
		"web-1 exited with code 139":                             true,
		"[boot] 2031-05-06T07:08:10Z heron exited with status 1": true,
		"supervisor: program worker exited with code 1":          true,
		"heron exited with status 3, restarting in 5s":           false,
		"exited with code 1":                                     false,
		"the runner: exited with status 2":                       false,
	} {
		if got := isExitReport(line); got != want {
			t.Errorf("isExitReport(%q) = %v, want %v", line, got, want)
		}
	}
}
