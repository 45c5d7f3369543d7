package decode

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The announced size only sizes the buffer: whatever it says, the body
// reads whole, and the limit holds.
func TestReadBodyWhateverTheAnnouncedSize(t *testing.T) {
	body := strings.Repeat("a made-up line of a launch\n", 1000)
	n := int64(len(body))
	for _, size := range []int64{-1, 0, 1, n - 1, n, n + 1, 4 * n} {
		got, err := ReadBody(strings.NewReader(body), "", size, 1<<20)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if string(got) != body {
			t.Fatalf("size %d: read %d bytes, want %d", size, len(got), n)
		}
	}
	for _, size := range []int64{-1, 10, n - 1, n} {
		_, err := ReadBody(strings.NewReader(body), "identity", size, n-1)
		var in *InputError
		if !errors.As(err, &in) || in.Status != http.StatusRequestEntityTooLarge {
			t.Fatalf("size %d, limit %d: got %v, want 413", size, n-1, err)
		}
	}
}

func TestReadBodyKeepsTheReadError(t *testing.T) {
	broken := io.MultiReader(bytes.NewReader([]byte("half a line")), errReader{})
	if _, err := ReadBody(broken, "", 1000, 1<<20); err == nil {
		t.Fatal("a body that failed to read was accepted")
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }
