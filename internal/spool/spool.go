// Package spool keeps on local disk what `launchwatch run` and `ship` could
// not deliver (lines with their seqs, health results, the exit report) and
// delivers it later: `launchwatch flush`, or the next run or ship to the
// same server. Each entry is the undelivered rest of one launch, a directory
// of the spool holding its lines (NDJSON) and a small meta file that also
// records how far a delivery got. The spool is bounded: writing an entry
// drops the oldest ones first.
package spool

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"launchwatch/internal/client"
)

// DefaultMaxBytes bounds a spool: 1 GiB.
const DefaultMaxBytes int64 = 1 << 30

// Dir is the spool directory: override if set (--spool-dir,
// LAUNCHWATCH_SPOOL_DIR), else launchwatch/spool in the user cache
// directory.
func Dir(override string) string {
	if override != "" {
		return override
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "launchwatch", "spool")
}

// Exit is a process exit report waiting to be sent.
type Exit struct {
	Code      *int   `json:"code,omitempty"`
	Signal    string `json:"signal,omitempty"`
	Requested bool   `json:"requested,omitempty"`
}

// Health is a health probe result waiting to be sent.
type Health struct {
	OK     bool      `json:"ok"`
	Detail string    `json:"detail"`
	At     time.Time `json:"at,omitzero"` // when the probe ran: the report says its age
}

// Age is how long ago the probe ran (0 when unknown).
func (h Health) Age() time.Duration {
	if h.At.IsZero() {
		return 0
	}
	return max(time.Since(h.At), 0)
}

// Entry is one launch's undelivered rest.
type Entry struct {
	Server  string     `json:"server"` // the server's base URL
	Launch  string     `json:"launch"`
	Attrs   url.Values `json:"attrs,omitempty"` // sent with every batch: server, host, name, tz, label.K
	Created time.Time  `json:"created"`
	// Relative: the seqs count from 1 within the launch's run, because the
	// server never said where the launch's lines end; they go after what
	// the server holds when the entry is first delivered, and Base records
	// that, so a delivery that is cut short resumes with the same seqs.
	Relative bool     `json:"relative,omitempty"`
	Resolved bool     `json:"resolved,omitempty"` // Base is known
	Base     int64    `json:"base,omitempty"`
	Lines    int64    `json:"lines"`    // lines in the lines file
	LastSeq  int64    `json:"last_seq"` // the last line's seq as spooled (relative if Relative)
	Health   []Health `json:"health,omitempty"`
	Exit     *Exit    `json:"exit,omitempty"`
	// What a delivery got acknowledged so far.
	LinesDone  int64 `json:"lines_done,omitempty"`
	HealthDone int   `json:"health_done,omitempty"`

	dir string
}

// Name is the entry's directory name.
func (e *Entry) Name() string { return filepath.Base(e.dir) }

// Pending is the number of lines not delivered yet.
func (e *Entry) Pending() int64 { return e.Lines - e.LinesDone }

// offset is what is added to the spooled seqs to get the launch's.
func (e *Entry) offset() int64 {
	if e.Relative {
		return e.Base
	}
	return 0
}

// end is the last seq the entry will have under its launch, and whether
// that is known yet.
func (e *Entry) end() (int64, bool) {
	if e.Relative && !e.Resolved {
		return 0, false
	}
	return e.LastSeq + e.offset(), true
}

const (
	metaFile  = "meta.json"
	linesFile = "lines.ndjson"
	lockFile  = "lock"
)

// Write adds an entry with its lines to the spool at dir, keeping the
// spool within maxBytes: the oldest entries are dropped first, and an entry
// larger than the bound on its own keeps its newest lines. Every drop is
// told to warn. It returns the entry as written.
func Write(dir string, maxBytes int64, e Entry, lines []client.Line, warn func(string)) (*Entry, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	body := client.EncodeLines(lines)
	if int64(len(body)) > maxBytes {
		cut, kept := 0, len(lines)
		for int64(len(body)-cut) > maxBytes && kept > 0 {
			i := bytes.IndexByte(body[cut:], '\n')
			cut += i + 1
			kept--
		}
		warn(fmt.Sprintf("the spool holds at most %d bytes: the %d oldest lines of launch %s are dropped", maxBytes, len(lines)-kept, e.Launch))
		body, lines = body[cut:], lines[len(lines)-kept:]
	}
	e.Lines = int64(len(lines))
	if len(lines) > 0 {
		e.LastSeq = lines[len(lines)-1].Seq
	}
	if e.Created.IsZero() {
		e.Created = time.Now().UTC()
	}
	if err := makeRoom(dir, maxBytes-int64(len(body))-4096, warn); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(dir, ".tmp-")
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	defer os.RemoveAll(tmp) // gone once renamed
	if err := writeFileSync(filepath.Join(tmp, linesFile), body); err != nil {
		return nil, err
	}
	e.dir = tmp
	if err := e.save(); err != nil {
		return nil, err
	}
	suffix := make([]byte, 4)
	rand.Read(suffix) //nolint:errcheck // never fails
	final := filepath.Join(dir, fmt.Sprintf("%020d-%s", e.Created.UnixNano(), hex.EncodeToString(suffix)))
	if err := os.Rename(tmp, final); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	e.dir = final
	return &e, nil
}

// makeRoom drops the oldest entries until the spool holds at most room
// bytes. An entry being delivered (locked) is left alone.
func makeRoom(dir string, room int64, warn func(string)) error {
	entries, err := List(dir)
	if err != nil {
		return err
	}
	var total int64
	sizes := make([]int64, len(entries))
	for i, e := range entries {
		sizes[i] = dirSize(e.dir)
		total += sizes[i]
	}
	for i, e := range entries {
		if total <= room {
			return nil
		}
		unlock, ok := e.lock()
		if !ok {
			continue
		}
		err := os.RemoveAll(e.dir)
		unlock()
		if err != nil {
			return fmt.Errorf("spool: dropping %s: %w", e.dir, err)
		}
		total -= sizes[i]
		warn(fmt.Sprintf("the spool is full: dropped the oldest spooled launch %s for %s (%d lines, spooled %s)",
			e.Launch, e.Server, e.Pending(), e.Created.Format(time.RFC3339)))
	}
	return nil
}

func dirSize(dir string) int64 {
	var n int64
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		if fi, err := f.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// List returns the spool's entries, oldest first. A missing spool is
// empty; an entry that cannot be read (being removed) is left out.
func List(dir string) ([]*Entry, error) {
	names, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	var out []*Entry
	for _, n := range names {
		if !n.IsDir() || strings.HasPrefix(n.Name(), ".") {
			continue
		}
		e, err := load(filepath.Join(dir, n.Name()))
		if err != nil {
			continue
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *Entry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

func load(dir string) (*Entry, error) {
	data, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return nil, err
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	e.dir = dir
	return &e, nil
}

// save writes the meta file atomically.
func (e *Entry) save() error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	tmp := filepath.Join(e.dir, metaFile+".tmp")
	if err := writeFileSync(tmp, data); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(e.dir, metaFile)); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("spool: writing %s: %w", path, err)
	}
	return nil
}

// lock takes the entry for this process (an advisory lock, released when
// the process dies); false if another process holds it.
func (e *Entry) lock() (func(), bool) {
	f, err := os.OpenFile(filepath.Join(e.dir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN) //nolint:errcheck
		f.Close()
	}, true
}

// readLines calls fn with up to n lines at a time of the entry's lines
// file after the first skip, their seqs as spooled.
func (e *Entry) readLines(skip int64, n int, fn func([]client.Line) error) error {
	f, err := os.Open(filepath.Join(e.dir, linesFile))
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var chunk []client.Line
	for i := int64(0); ; i++ {
		data, err := r.ReadBytes('\n')
		if len(data) > 0 && i >= skip {
			var l client.Line
			if jerr := json.Unmarshal(data, &l); jerr != nil {
				return fmt.Errorf("spool: %s line %d is damaged: %v", e.dir, i+1, jerr)
			}
			chunk = append(chunk, l)
			if len(chunk) == n {
				if err := fn(chunk); err != nil {
					return err
				}
				chunk = nil
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("spool: %w", err)
		}
	}
	if len(chunk) > 0 {
		return fn(chunk)
	}
	return nil
}

// ReservedThrough is the last seq the spool will give launch on server
// once delivered (0 if it holds none with a known seq), and whether an
// entry of it still waits to learn where its lines go. A run that numbers
// new lines of the launch must number them after it.
func ReservedThrough(dir, server, launch string) (int64, bool) {
	entries, _ := List(dir)
	var last int64
	unresolved := false
	for _, e := range entries {
		if e.Server != server || e.Launch != launch {
			continue
		}
		if end, ok := e.end(); ok {
			last = max(last, end)
		} else {
			unresolved = true
		}
	}
	return last, unresolved
}

// ErrBusy is returned for an entry another process is delivering.
var ErrBusy = errors.New("spool: another launchwatch process is delivering this entry")

// keyOf is what orders the entries of one launch on one server.
func keyOf(e *Entry) string { return e.Server + "\x00" + e.Launch }
