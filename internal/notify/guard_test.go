package notify_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/notify"
)

func TestRefusedAddr(t *testing.T) {
	t.Parallel()
	refused := []string{
		"127.0.0.1", "127.5.5.5", "::1", "0.0.0.0", "::", "0.1.2.3",
		"169.254.169.254", "fd00:ec2::254", "fe80::1%eth0", "169.254.0.1",
		"10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "fc00::1", "fec0::1",
		"100.64.0.1", "100.100.100.200", "100.127.255.255",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::1",
		"224.0.0.1", "255.255.255.255", "ff02::1", "198.18.0.1", "192.0.0.170",
	}
	allowed := []string{"8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "172.32.0.1", "100.128.0.1", "64:ff9b::808:808", "192.0.1.1", "11.0.0.1"}
	for _, s := range refused {
		if why := notify.RefusedAddr(netip.MustParseAddr(s)); why == "" {
			t.Errorf("%s is not refused", s)
		}
	}
	for _, s := range allowed {
		if why := notify.RefusedAddr(netip.MustParseAddr(s)); why != "" {
			t.Errorf("%s is refused as %s", s, why)
		}
	}
}

func TestCheckDestination(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ url, want string }{
		{"http://127.0.0.1:9/x", "127.0.0.1 is a loopback address"},
		{"http://[::1]/x", "::1 is a loopback address"},
		{"http://169.254.169.254/latest/meta-data/", "link-local"},
		{"http://[fd00:ec2::254]/", "unique local"},
		{"http://[::ffff:192.168.0.1]/", "192.168.0.1 is a private address"},
		{"http://localhost:8080/", "loopback"},     // resolved (or a loopback name that does not)
		{"http://a.b.localhost:8080/", "loopback"}, // a loopback name
		{"https://8.8.8.8/hook", ""},
	} {
		got := notify.CheckDestination(t.Context(), net.DefaultResolver, tt.url)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.url, got, tt.want)
		}
	}
}

// A target saved before the check, or a name that resolves to a private
// address only now (DNS rebinding), is still not sent to: the worker's
// client refuses the address it would connect to, after resolution. The
// delivery log says why; nothing reaches the receiver. With
// --webhook-allow-private the same target gets it.
func TestDeliveryToPrivateAddressIsRefusedAtSendTime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, 0)
	port := strings.TrimPrefix(rcv.srv.URL, "http://127.0.0.1:")
	// Stored directly: the API would refuse it (TestWebhookToPrivateAddressIs422).
	h := b.hook(t, "http://localhost:"+port+"/hook", "json", "crashed")
	b.crash(t, "rebind-1")

	if _, err := notify.New(b.st, notify.Config{Clock: b.clock}).Work(b.ctx); err != nil {
		t.Fatal(err)
	}
	if got := rcv.deliveries(); len(got) != 0 {
		t.Fatalf("the receiver on a loopback address got %d requests, want none", len(got))
	}
	log := b.deliveryLog(t, h.ID)
	if len(log) != 1 || log[0].State != "pending" || log[0].Attempts != 1 || log[0].LastStatus != nil ||
		!strings.Contains(log[0].LastError, "loopback address") || !strings.Contains(log[0].LastError, "--webhook-allow-private") {
		t.Fatalf("log after the refused attempt: %+v", log)
	}

	client := notify.NewClient(10*time.Second, true)
	t.Cleanup(client.CloseIdleConnections)
	b.clock.Advance(notify.DefaultBackoff(1))
	if _, err := notify.New(b.st, notify.Config{Clock: b.clock, Client: client}).Work(b.ctx); err != nil {
		t.Fatal(err)
	}
	if got := rcv.deliveries(); len(got) != 1 {
		t.Fatalf("allowed private addresses: the receiver got %d requests, want 1", len(got))
	}
	if log := b.deliveryLog(t, h.ID); log[0].State != "delivered" {
		t.Errorf("log: %+v", log)
	}
}

// A target that redirects is not followed: a redirect could send the
// server anywhere, and a receiver answers, it does not forward.
func TestWebhookRedirectIsNotFollowed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	elsewhere := newReceiver(t, 0)
	redirect := httptest.NewServer(http.RedirectHandler(elsewhere.srv.URL+"/internal", http.StatusFound))
	t.Cleanup(redirect.Close)
	h := b.hook(t, redirect.URL+"/hook", "json", "crashed")
	b.crash(t, "redirect-1")
	client := notify.NewClient(10*time.Second, true)
	t.Cleanup(client.CloseIdleConnections)
	if _, err := notify.New(b.st, notify.Config{Clock: b.clock, Client: client}).Work(b.ctx); err != nil {
		t.Fatal(err)
	}
	if got := elsewhere.deliveries(); len(got) != 0 {
		t.Errorf("the redirect was followed: %d requests", len(got))
	}
	log := b.deliveryLog(t, h.ID)
	if len(log) != 1 || log[0].State != "pending" || log[0].LastStatus == nil || *log[0].LastStatus != http.StatusFound ||
		log[0].LastError != "HTTP 302: redirects are not followed" {
		t.Errorf("log: %+v", log)
	}
}
