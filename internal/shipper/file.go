package shipper

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// headMax is how many first bytes of a file fingerprint its content, as
// Filebeat's fingerprint and Vector's checksum do: truncation keeps the
// inode, so only the content tells a file written again from the old one.
const headMax = 4096

// tailMax is how many bytes before the acknowledged offset fingerprint the
// content too: a log written again from the same first bytes (a server's
// banner and configuration dump are the same at every start) differs
// further on, and where the old content was acknowledged to is where
// resuming reads from.
const tailMax = 4096

// openFile is the file being read: one content (a generation of the file),
// read from its start.
type openFile struct {
	f        *os.File
	dev, ino uint64
	cutter          // read position and the unfinished line
	head     []byte // the content's first bytes, up to headMax, as read
}

// cutter cuts a content's bytes into the lines the follower numbers: at
// each "\n" (one "\r" before it dropped), and a line longer than
// maxLineBytes into pieces of maxLineBytes first. The same bytes give the
// same lines however they were read, so a line's seq can be found again
// from the file (repair.go).
type cutter struct {
	offset  int64  // bytes consumed
	partial []byte // an unfinished line's bytes so far
}

// feed cuts data, read at c.offset, calling emit with each line or piece
// completed and the offset just after it; text is valid during the call.
func (c *cutter) feed(data []byte, emit func(text []byte, end int64)) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			c.partial = append(c.partial, data...)
			c.offset += int64(len(data))
			c.cut(emit)
			return
		}
		if len(c.partial) == 0 && i <= maxLineBytes { // the usual line: no copy
			c.offset += int64(i + 1)
			emit(bytes.TrimSuffix(data[:i], []byte("\r")), c.offset)
			data = data[i+1:]
			continue
		}
		c.partial = append(c.partial, data[:i]...)
		c.offset += int64(i)
		c.cut(emit)
		c.offset++
		emit(bytes.TrimSuffix(c.partial, []byte("\r")), c.offset)
		c.partial = c.partial[:0]
		data = data[i+1:]
	}
}

// cut emits the pieces of a runaway line, keeping what is left of it.
func (c *cutter) cut(emit func(text []byte, end int64)) {
	for len(c.partial) > maxLineBytes {
		emit(c.partial[:maxLineBytes], c.offset-int64(len(c.partial)-maxLineBytes))
		c.partial = append(c.partial[:0:0], c.partial[maxLineBytes:]...)
	}
}

// flush emits the unfinished last line, if any: the writer is done with
// the content.
func (c *cutter) flush(emit func(text []byte, end int64)) {
	if len(c.partial) > 0 {
		emit(bytes.TrimSuffix(c.partial, []byte("\r")), c.offset)
		c.partial = nil
	}
}

func fileID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino
	}
	return 0, 0
}

func newOpenFile(file *os.File) (*openFile, error) {
	fi, err := file.Stat()
	if err != nil {
		return nil, err
	}
	of := &openFile{f: file}
	of.dev, of.ino = fileID(fi)
	return of, nil
}

func sameFile(fi os.FileInfo, of *openFile) bool {
	dev, ino := fileID(fi)
	return dev == of.dev && ino == of.ino
}

// grow keeps what data, read at of.offset, adds to the head; it reports
// whether the head changed.
func (of *openFile) grow(data []byte) bool {
	h := int64(len(of.head))
	if h >= headMax || of.offset > h || of.offset+int64(len(data)) <= h {
		return false
	}
	end := min(int64(len(data)), headMax-of.offset)
	of.head = append(of.head, data[h-of.offset:end]...)
	return true
}

// replaced reports whether the file no longer holds the content read so
// far: it is shorter than what was read, or its first bytes changed (it
// was truncated, and perhaps written again past the old size, between two
// looks).
func (of *openFile) replaced() (bool, error) {
	fi, err := of.f.Stat()
	if err != nil {
		return false, err
	}
	if fi.Size() < of.offset {
		return true, nil
	}
	return !bytes.Equal(readHead(of.f, len(of.head)), of.head), nil
}

// readHead is the file's first n bytes, or fewer if it is shorter.
func readHead(f *os.File, n int) []byte {
	buf := make([]byte, n)
	got, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return nil
	}
	return buf[:got]
}

// headSum is the fingerprint kept in the state file.
func headSum(head []byte) string {
	sum := sha256.Sum256(head)
	return hex.EncodeToString(sum[:])
}

// tailSum is the fingerprint of the up to tailMax bytes of f that end at
// offset, and how many bytes it covers; false if they cannot be read
// (the file is shorter now).
func tailSum(f *os.File, offset int64) (string, int, bool) {
	n := min(offset, tailMax)
	buf := make([]byte, n)
	if got, err := f.ReadAt(buf, offset-n); int64(got) != n && err != nil {
		return "", 0, false
	}
	return headSum(buf), int(n), true
}

// holds reports whether file is the content the state is about: same
// device and inode, the same first bytes, at least the acknowledged
// length, and the same bytes before the acknowledged offset. It returns
// the head read, for the reader to go on with.
func (s State) holds(of *openFile) ([]byte, bool) {
	if s.Ino == 0 || of.dev != s.Dev || of.ino != s.Ino {
		return nil, false
	}
	fi, err := of.f.Stat()
	if err != nil || fi.Size() < s.Offset {
		return nil, false
	}
	head := readHead(of.f, s.HeadLen)
	if len(head) != s.HeadLen || s.HeadLen > 0 && headSum(head) != s.Head {
		return nil, false
	}
	if s.TailLen > 0 {
		if sum, n, ok := tailSum(of.f, s.Offset); !ok || n != s.TailLen || sum != s.Tail {
			return nil, false
		}
	}
	return head, true
}

// findRotated opens the rotated copy of path (server.log.1,
// server.log-20260412, ...: a name beside it that starts with its name)
// with the given device and inode, or returns nil. Only such names are
// looked at: the inode of a deleted file may belong to an unrelated one.
func findRotated(path string, dev, ino uint64) *os.File {
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == base || !strings.HasPrefix(e.Name(), base) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if d, i := fileID(fi); d != dev || i != ino {
			continue
		}
		file, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil
		}
		if fi, err := file.Stat(); err == nil {
			if d, i := fileID(fi); d == dev && i == ino {
				return file
			}
		}
		file.Close()
		return nil
	}
	return nil
}
