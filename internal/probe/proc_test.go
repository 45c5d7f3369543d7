package probe

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestMain lets this test binary play the processes whose sockets the
// tests look for (PROBE_CHILD=mode).
func TestMain(m *testing.M) {
	switch os.Getenv("PROBE_CHILD") {
	case "":
		os.Exit(m.Run())
	case "listen":
		os.Exit(listenChild())
	case "parent":
		os.Exit(parentChild())
	case "orphan":
		os.Exit(orphanChild())
	}
	os.Exit(99)
}

// listenChild listens on 127.0.0.1 and on [::1] (when the host has IPv6),
// prints "PORTS p4 p6" and waits for its stdin to close.
func listenChild() int {
	l4, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	defer l4.Close()
	p6 := 0
	if l6, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		defer l6.Close()
		p6 = l6.Addr().(*net.TCPAddr).Port
	}
	fmt.Println("PORTS", l4.Addr().(*net.TCPAddr).Port, p6)
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck
	return 0
}

// parentChild starts a listenChild (its grandchild, for the test), passes
// its line on, and waits for its stdin to close; it listens on nothing.
func parentChild() int {
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "PROBE_CHILD=listen")
	cmd.Stdout = os.Stdout
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 1
	}
	if err := cmd.Start(); err != nil {
		return 1
	}
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck
	stdin.Close()
	cmd.Wait() //nolint:errcheck
	return 0
}

// orphanChild starts a listenChild that shares its stdin and stdout, and
// exits once that one said its ports: the listener lives on, adopted by
// init, in this process's process group.
func orphanChild() int {
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "PROBE_CHILD=listen")
	cmd.Stdin = os.Stdin
	r, w, err := os.Pipe()
	if err != nil {
		return 1
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		return 1
	}
	w.Close()
	line, _ := bufio.NewReader(r).ReadString('\n')
	fmt.Print(line)
	return 0
}

// startChild starts this binary in mode and returns it with the ports its
// listening process printed; closing its stdin (at cleanup) ends it.
func startChild(t *testing.T, mode string, attr *syscall.SysProcAttr) (*exec.Cmd, int, int) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "PROBE_CHILD="+mode)
	cmd.SysProcAttr = attr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait() //nolint:errcheck
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	var p4, p6 int
	if _, err := fmt.Sscanf(line, "PORTS %d %d", &p4, &p6); err != nil {
		t.Fatalf("child said %q", line)
	}
	return cmd, p4, p6
}

func ports(as []netip.AddrPort) []int {
	var out []int
	for _, a := range as {
		out = append(out, int(a.Port()))
	}
	return out
}

func TestListening(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	t.Parallel()

	t.Run("TheChildsOwnSockets", func(t *testing.T) {
		t.Parallel()
		cmd, p4, p6 := startChild(t, "listen", nil)
		got, err := Listening(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		want := []netip.AddrPort{netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(p4))}
		if p6 != 0 {
			want = append(want, netip.AddrPortFrom(netip.IPv6Loopback(), uint16(p6)))
		}
		slices.SortFunc(want, func(a, b netip.AddrPort) int { return int(a.Port()) - int(b.Port()) })
		if !slices.Equal(got, want) {
			t.Errorf("Listening = %v, want %v", got, want)
		}
	})

	// The server is often a grandchild: a shell, a launcher or torchrun
	// starts it.
	t.Run("AGrandchildsSockets", func(t *testing.T) {
		t.Parallel()
		cmd, p4, _ := startChild(t, "parent", nil)
		got, err := Listening(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ports(got), p4) {
			t.Errorf("Listening = %v, want the grandchild's port %d", got, p4)
		}
	})

	// A socket this test process listens on belongs to no child's tree.
	t.Run("NotAnotherProcesssSockets", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		cmd, _, _ := startChild(t, "listen", nil)
		got, err := Listening(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if mine := l.Addr().(*net.TCPAddr).Port; slices.Contains(ports(got), mine) {
			t.Errorf("Listening = %v includes port %d of the test process", got, mine)
		}
	})

	// A helper whose parent exited was adopted by init, but keeps the
	// process group `run` gave the server.
	t.Run("AnOrphanInTheProcessGroup", func(t *testing.T) {
		t.Parallel()
		cmd, p4, _ := startChild(t, "orphan", &syscall.SysProcAttr{Setpgid: true})
		pid := cmd.Process.Pid
		// The parent exits at once; its group lives on in the listener.
		// (Process.Wait, not cmd.Wait: that would close the listener's stdin.)
		cmd.Process.Wait() //nolint:errcheck
		got, err := Listening(pid)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ports(got), p4) {
			t.Errorf("Listening = %v, want the orphan's port %d", got, p4)
		}
	})

	t.Run("AProcessThatIsGone", func(t *testing.T) {
		t.Parallel()
		cmd := exec.Command("true")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		got, err := Listening(cmd.Process.Pid)
		if err != nil || len(got) != 0 {
			t.Errorf("Listening of a reaped process = %v, %v; want nothing", got, err)
		}
	})
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want procStat
		ok   bool
	}{
		{"1234 (python3) S 1200 1234 1200 0 -1 4194304", procStat{1234, 1200, 1234}, true},
		{"77 (tokio (rt) worker) R 12 70 70 0", procStat{77, 12, 70}, true}, // a comm with spaces and parentheses
		{"garbage", procStat{}, false},
		{"12 (x) S", procStat{}, false},
	} {
		got, ok := parseStat(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseTCPLine(t *testing.T) {
	t.Parallel()
	if !nativeLittle() {
		t.Skip("the lines below are a little-endian host's")
	}
	for _, tt := range []struct {
		line string
		want string // "" when no LISTEN socket
		ino  uint64
	}{
		{"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 48301 1 0000000000000000 100 0 0 10 0", "127.0.0.1:8080", 48301},
		{"   1: 00000000:7530 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 99 1", "0.0.0.0:30000", 99},
		{"   2: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 48302 1", "", 0}, // ESTABLISHED
		{"   0: 00000000000000000000000001000000:1F40 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000 0 555 1", "[::1]:8000", 555},
		{"   1: 00000000000000000000000000000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  0 0 556 1", "[::]:80", 556},
		{"   2: 0000000000000000FFFF00000100007F:2382 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  0 0 557 1", "127.0.0.1:9090", 557}, // v4-mapped
		{"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode", "", 0},
	} {
		got, ok := parseTCPLine(tt.line)
		if tt.want == "" {
			if ok {
				t.Errorf("parseTCPLine(%q) = %v, want no LISTEN socket", tt.line, got)
			}
			continue
		}
		if !ok || got.addr.String() != tt.want || got.inode != tt.ino {
			t.Errorf("parseTCPLine(%q) = %v %d, %v; want %s %d", tt.line, got.addr, got.inode, ok, tt.want, tt.ino)
		}
	}
}

func nativeLittle() bool {
	var b [2]byte
	binary.NativeEndian.PutUint16(b[:], 1)
	return b[0] == 1
}

func TestCommandPorts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		env  []string
		want []uint16
	}{
		{[]string{"python", "-m", "sglang.launch_server", "--model-path", "m", "--port", "30000"}, nil, []uint16{30000}},
		{[]string{"vllm", "serve", "m", "--port=8001"}, nil, []uint16{8001}},
		{[]string{"server", "-p", "9000"}, nil, []uint16{9000}},
		{[]string{"docker", "run", "-p", "8080:80", "-p", "127.0.0.1:9443:443/tcp", "img"}, nil, []uint16{8080, 9443}},
		{[]string{"tritonserver", "--model-repository=/m", "--http-port", "8010", "--grpc-port", "8011"}, nil, []uint16{8010}},
		{[]string{"tritonserver", "--http-port=8020"}, nil, []uint16{8020}},
		{[]string{"srv", "--listen", "0.0.0.0:7000"}, nil, []uint16{7000}},
		{[]string{"srv", "--listen=:7001"}, nil, []uint16{7001}},
		{[]string{"srv", "--listen", "http://[::]:7002"}, nil, []uint16{7002}},
		{[]string{"srv", "--listen", "7003"}, nil, []uint16{7003}},
		{[]string{"node", "server.js"}, []string{"HOME=/root", "PORT=3000"}, []uint16{3000}},
		{[]string{"sh", "-c", "exec vllm serve m --port 8000 --host 0.0.0.0"}, nil, []uint16{8000}},
		{[]string{"srv", "--port", "8000", "--port=8000"}, []string{"PORT=8000"}, []uint16{8000}},
		// Not ports: a value that is no port, a flag at the end, other flags.
		{[]string{"srv", "--port", "auto", "-p", "4x", "--grpc-port", "9", "--tcp-port", "1", "--port"}, []string{"APORT=1", "PORT=0"}, nil},
		{[]string{"python3", "-m", "http.server", "8123", "--bind", "127.0.0.1"}, nil, nil},
	} {
		if got := CommandPorts(tt.args, tt.env); !slices.Equal(got, tt.want) {
			t.Errorf("CommandPorts(%q, %q) = %v, want %v", tt.args, tt.env, got, tt.want)
		}
	}
}

func TestTargets(t *testing.T) {
	t.Parallel()
	ap := netip.MustParseAddrPort
	base := func(ts []Target) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.Base()+" "+t.Source)
		}
		return strings.Join(s, ", ")
	}
	for _, tt := range []struct {
		name      string
		args      []uint16
		endpoints []string
		listeners []netip.AddrPort
		want      string
	}{
		{"NothingKnown", nil, nil, nil, ""},
		{"ListenersWhenNothingIsNamed", nil, nil, []netip.AddrPort{ap("0.0.0.0:8000"), ap("[::]:8000"), ap("10.1.2.3:9000"), ap("[::]:9100")},
			"http://127.0.0.1:8000 listening, http://10.1.2.3:9000 listening, http://[::1]:9100 listening"},
		{"NamedPortsOnly", []uint16{30000}, nil, []netip.AddrPort{ap("0.0.0.0:30000"), ap("127.0.0.1:29500"), ap("0.0.0.0:8265")},
			"http://127.0.0.1:30000 command line"},
		{"NamedPortNotListeningYet", []uint16{30000}, nil, nil, "http://127.0.0.1:30000 command line"},
		{"EndpointsFromTheLog", nil, []string{"http://0.0.0.0:8000", "grpc://0.0.0.0:8001", "https://[::]:8443", "ws://localhost:9000"}, nil,
			"http://127.0.0.1:8000 log, https://127.0.0.1:8443 log, http://127.0.0.1:9000 log"},
		{"TheLogSaysHTTPS", []uint16{8443}, []string{"https://0.0.0.0:8443"}, nil, "https://127.0.0.1:8443 command line"},
		{"ANamedPortBoundToOneAddress", []uint16{8000}, nil, []netip.AddrPort{ap("10.0.0.5:8000")}, "http://10.0.0.5:8000 command line"},
	} {
		if got := base(Targets(tt.args, tt.endpoints, tt.listeners)); got != tt.want {
			t.Errorf("%s: Targets = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPaths(t *testing.T) {
	t.Parallel()
	for fam, want := range map[string]string{
		"":        "/health /v1/models /",
		"vllm":    "/health /v1/models /",
		"triton":  "/v2/health/ready /health /v1/models /",
		"ollama":  "/ /health /v1/models",
		"unknown": "/health /v1/models /",
	} {
		if got := strings.Join(Paths(fam), " "); got != want {
			t.Errorf("Paths(%q) = %q, want %q", fam, got, want)
		}
	}
}
