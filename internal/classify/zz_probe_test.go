package classify_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"launchwatch/internal/classify"
)

func TestZZProbe(t *testing.T) {
	b, _ := os.ReadFile(os.Getenv("PROBE_FILE"))
	for _, l := range strings.Split(string(b), "\n") {
		p := classify.ParsePrefix(l, 2026)
		fmt.Printf("level=%q req=%v emb=%v body=%.200q\n", p.Level, p.Request, p.Embedded, p.Body)
	}
}
