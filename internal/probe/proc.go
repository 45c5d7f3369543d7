// Package probe finds and checks the HTTP endpoints of a server that
// `launchwatch run` started, knowing nothing about the server: the TCP ports
// its process tree listens on (Linux: /proc), the ports its command line and
// environment name (--port 8000, PORT=8000), and the endpoints its log
// announced. Check asks a target for its health the way a load balancer
// would: the family's health path when it has one, then /health, /v1/models
// and /, each request with a short timeout.
package probe

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// procRoot is where the proc file system is mounted.
const procRoot = "/proc"

// maxTree bounds the processes of one tree whose sockets are read: a
// server's helpers are a few dozen, not thousands.
const maxTree = 512

// Listening returns the TCP addresses that the process pid, its
// descendants and the members of its process group listen on, sorted by
// port, each once. It reads /proc: the process tree from every process's
// stat (parent and process group), the socket inodes among their open
// files, and the LISTEN sockets of /proc/net/tcp and tcp6 (the network
// namespace of the caller: sockets of a namespace it cannot reach are not
// found, and could not be probed). Processes it may not read (another
// user's) are skipped. On other systems it returns errors.ErrUnsupported.
func Listening(pid int) ([]netip.AddrPort, error) {
	if runtime.GOOS != "linux" {
		return nil, errors.ErrUnsupported
	}
	return listening(procRoot, pid)
}

func listening(root string, pid int) ([]netip.AddrPort, error) {
	pids, err := tree(root, pid)
	if err != nil {
		return nil, err
	}
	inodes := map[uint64]bool{}
	for _, p := range pids {
		socketInodes(filepath.Join(root, strconv.Itoa(p), "fd"), inodes)
	}
	if len(inodes) == 0 {
		return nil, nil
	}
	var out []netip.AddrPort
	for _, name := range []string{"tcp", "tcp6"} {
		ls, err := listenSockets(filepath.Join(root, "net", name))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // no IPv6 in this kernel
			}
			return nil, err
		}
		for _, l := range ls {
			if inodes[l.inode] {
				out = append(out, l.addr)
			}
		}
	}
	slices.SortFunc(out, func(a, b netip.AddrPort) int {
		if a.Port() != b.Port() {
			return int(a.Port()) - int(b.Port())
		}
		return a.Addr().Compare(b.Addr())
	})
	return slices.Compact(out), nil
}

// procStat is what tree needs of a process's /proc/PID/stat.
type procStat struct {
	pid, ppid, pgrp int
}

// parseStat reads "pid (comm) state ppid pgrp ...": comm may hold spaces
// and parentheses, so the fields after it are found from its last ')'.
func parseStat(s string) (procStat, bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 1 || end < open {
		return procStat{}, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
	if err != nil {
		return procStat{}, false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 3 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{pid: pid, ppid: ppid, pgrp: pgrp}, true
}

// tree returns pid, its descendants, and the processes of its process
// group (helpers that outlived their parent and were adopted by init keep
// the group `run` gave the server), at most maxTree of them.
func tree(root string, pid int) ([]int, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	var group []int
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, e.Name(), "stat"))
		if err != nil {
			continue // it ended meanwhile
		}
		st, ok := parseStat(string(data))
		if !ok || st.pid == pid {
			continue
		}
		children[st.ppid] = append(children[st.ppid], st.pid)
		if st.pgrp == pid {
			group = append(group, st.pid)
		}
	}
	seen := map[int]bool{pid: true}
	out := []int{pid}
	for i := 0; i < len(out) && len(out) < maxTree; i++ {
		for _, c := range children[out[i]] {
			if !seen[c] && len(out) < maxTree {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	for _, g := range group {
		if !seen[g] && len(out) < maxTree {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out, nil
}

// socketInodes adds the inodes of the sockets among the open files in the
// fd directory dir ("socket:[12345]").
func socketInodes(dir string, into map[uint64]bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // gone, or another user's
	}
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		rest, ok := strings.CutPrefix(target, "socket:[")
		if !ok || !strings.HasSuffix(rest, "]") {
			continue
		}
		if n, err := strconv.ParseUint(rest[:len(rest)-1], 10, 64); err == nil {
			into[n] = true
		}
	}
}

// listenSocket is a LISTEN line of /proc/net/tcp or tcp6.
type listenSocket struct {
	addr  netip.AddrPort
	inode uint64
}

// tcpListen is the state column of a listening socket (TCP_LISTEN).
const tcpListen = "0A"

// listenSockets reads the LISTEN sockets of a /proc/net/tcp(6) file.
func listenSockets(path string) ([]listenSocket, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []listenSocket
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if l, ok := parseTCPLine(sc.Text()); ok {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

// parseTCPLine reads one line of /proc/net/tcp(6):
//
//	sl  local_address rem_address   st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
//	0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000 1000 0 48301 ...
//
// and reports a LISTEN socket's address and inode (the header and other
// states are not one).
func parseTCPLine(line string) (listenSocket, bool) {
	f := strings.Fields(line)
	if len(f) < 10 || f[3] != tcpListen {
		return listenSocket{}, false
	}
	addr, ok := parseHexAddr(f[1])
	if !ok {
		return listenSocket{}, false
	}
	inode, err := strconv.ParseUint(f[9], 10, 64)
	if err != nil || inode == 0 {
		return listenSocket{}, false
	}
	return listenSocket{addr: addr, inode: inode}, true
}

// parseHexAddr reads "0100007F:1F90" (IPv4) or 32 hex digits and a port
// (IPv6). The kernel prints the address as 32-bit words in the host's
// byte order, and the port as a number.
func parseHexAddr(s string) (netip.AddrPort, bool) {
	ip, port, ok := strings.Cut(s, ":")
	if !ok || (len(ip) != 8 && len(ip) != 32) {
		return netip.AddrPort{}, false
	}
	p, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return netip.AddrPort{}, false
	}
	raw, err := hex.DecodeString(ip)
	if err != nil {
		return netip.AddrPort{}, false
	}
	for i := 0; i < len(raw); i += 4 { // each word back to network order
		binary.NativeEndian.PutUint32(raw[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	a, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(a.Unmap(), uint16(p)), true
}
