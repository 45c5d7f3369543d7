package live

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"launchwatch/internal/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func woken(s *Sub) bool {
	select {
	case <-s.Wake():
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

func notWoken(s *Sub) bool {
	select {
	case <-s.Wake():
		return false
	default:
		return true
	}
}

func TestHub(t *testing.T) {
	t.Parallel()

	t.Run("WakesOnlyTheLaunchsSubscribers", func(t *testing.T) {
		t.Parallel()
		h := NewHub()
		a, b := h.Subscribe("a"), h.Subscribe("b")
		h.Publish("a")
		if !woken(a) || !notWoken(b) {
			t.Error("publishing a must wake a's subscriber only")
		}
	})

	t.Run("SlowSubscriberNeverBlocksAndWakesCoalesce", func(t *testing.T) {
		t.Parallel()
		h := NewHub()
		s := h.Subscribe("a")
		for range 10000 { // nobody reads: Publish must not block
			h.Publish("a")
		}
		if !woken(s) || !notWoken(s) {
			t.Error("10000 publishes to a sleeping subscriber must leave exactly one wake")
		}
	})

	t.Run("AllLaunchesHearsWhichChanged", func(t *testing.T) {
		t.Parallel()
		h := NewHub()
		s := h.Subscribe(AllLaunches)
		h.Publish("x")
		h.Publish("y")
		h.Publish("x")
		if !woken(s) {
			t.Fatal("not woken")
		}
		keys, resync := s.Changed()
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"x", "y"}) || resync {
			t.Errorf("Changed() = %v, %v", keys, resync)
		}
		if keys, _ := s.Changed(); len(keys) != 0 {
			t.Errorf("a second Changed() = %v, want none", keys)
		}
	})

	t.Run("TooManyChangesAskForResync", func(t *testing.T) {
		t.Parallel()
		h := NewHub()
		s := h.Subscribe(AllLaunches)
		for i := range maxPending + 5 {
			h.Publish(string(rune('a'+i%26)) + string(rune(i)))
		}
		if keys, resync := s.Changed(); !resync || len(keys) != maxPending {
			t.Errorf("Changed() = %d keys, resync %v; want %d and a resync", len(keys), resync, maxPending)
		}
	})

	t.Run("CloseEndsSubscriptionsAndPublishStaysSafe", func(t *testing.T) {
		t.Parallel()
		h := NewHub()
		s := h.Subscribe("a")
		h.Close()
		select {
		case <-s.Done():
		default:
			t.Error("Done not closed by Close")
		}
		h.Publish("a") // must not panic
		h.Unsubscribe(s)
		late := h.Subscribe("a")
		select {
		case <-late.Done():
		default:
			t.Error("a subscription after Close must be done at once")
		}
		if h.Subscribers() != 0 {
			t.Errorf("%d subscribers after Close", h.Subscribers())
		}
	})
}

func TestListenDeliversNotifications(t *testing.T) {
	t.Parallel()
	pool, _ := storetest.NewDB(t)
	h := NewHub()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Listen(ctx, pool, "test_channel", h, slog.New(slog.DiscardHandler))
	}()
	t.Cleanup(func() { cancel(); <-done })

	s := h.Subscribe("launch-1")
	// The listener may not be listening yet: notify until it hears.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := pool.Exec(ctx, `SELECT pg_notify('test_channel', 'launch-1')`); err != nil {
			t.Fatal(err)
		}
		select {
		case <-s.Wake():
			return
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no wake within 10s of NOTIFY")
		}
	}
}
