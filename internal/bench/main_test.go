package bench_test

import (
	"os"
	"testing"

	"launchwatch/internal/store/storetest"
)

func TestMain(m *testing.M) {
	if f := os.Getenv(classifyChildEnv); f != "" {
		os.Exit(classifyChild(f)) // classifyVsGrep's classifier process
	}
	if spec := os.Getenv(followerChildEnv); spec != "" {
		os.Exit(followerChildMain(spec)) // liveFollowers' followers
	}
	storetest.Main(m)
}
