package shipper

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// State is what `launchwatch ship` remembers between runs about one server,
// launch and file: which content it is reading (by device and inode, since
// rotation reuses the name, and by fingerprints of its first bytes and of
// the bytes before the acknowledged offset, since truncation keeps the
// inode), where that content's numbering starts, how
// far into it the server has acknowledged, and the seq of the last
// acknowledged line. Every seq after Seq belongs to that content: a new one
// (rotation, truncation) is only started once the old one is acknowledged.
type State struct {
	Server string `json:"server,omitempty"` // the server's base URL
	Launch string `json:"launch"`
	Path   string `json:"path"`
	Dev    uint64 `json:"dev"`
	Ino    uint64 `json:"ino"`
	// Head is the hex SHA-256 of the content's first HeadLen bytes (up to
	// 4 KiB): a file truncated and written again has other first bytes.
	Head    string `json:"head,omitempty"`
	HeadLen int    `json:"head_len,omitempty"`
	// Tail is the hex SHA-256 of the TailLen bytes (up to 4 KiB) that end
	// at Offset: a file truncated and written again with the same first
	// bytes (a banner, a configuration dump) mostly has other bytes there.
	// Empty in state files written before it was kept: then only the head
	// is compared.
	Tail    string `json:"tail,omitempty"`
	TailLen int    `json:"tail_len,omitempty"`
	Base    int64  `json:"base"`   // seq before the content's first line
	Offset  int64  `json:"offset"` // bytes of the content acknowledged
	Seq     int64  `json:"seq"`    // last acknowledged seq
}

// LoadState reads a state file; a missing file is a zero State.
func LoadState(path string) (State, error) {
	var s State
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("state file %s is damaged (%v): remove it to ship the file again from its start", path, err)
	}
	return s, nil
}

// Save writes the state atomically (write a temporary file, fsync, rename),
// so a crash leaves either the old or the new state, never half of one.
func (s State) Save(path string) error {
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
