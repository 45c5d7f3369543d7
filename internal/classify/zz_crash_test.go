package classify_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// CRASH=file: blocks separated by "----" lines; first line of a block is its name.
func TestZZCrash(t *testing.T) {
	f := os.Getenv("CRASH")
	if f == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(f)
	for _, blk := range strings.Split(string(b), "\n----\n") {
		lines := strings.SplitN(strings.TrimSpace(blk), "\n", 2)
		if len(lines) < 2 {
			continue
		}
		st, alarms := feedSettledState("", lines[1])
		sum := st.Summary()
		fmt.Printf("== %s: ready=%v fatal=%v alarms=%d\n", lines[0], sum.Ready != nil, sum.FatalAlarms, len(alarms))
		if sum.Ready != nil {
			fmt.Printf("   ready@%d\n", sum.Ready.Seq)
		}
		for _, a := range alarms {
			fmt.Printf("   alarm %d-%d fatal=%v head@%d %.100s\n", a.FirstSeq, a.LastSeq, a.Fatal, a.HeadlineSeq, a.Headline)
		}
	}
}
