package upkeep_test

import (
	"testing"

	"launchwatch/internal/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }
