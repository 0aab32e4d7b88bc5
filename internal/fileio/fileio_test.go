package fileio

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesWhatIsNotAFile: a named pipe is refused at once (not
// waited on), as are a device and a directory; a regular file and a link
// to one open.
func TestOpenRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "x.csv")
	os.WriteFile(plain, []byte("1,2\n"), 0o644)
	link := filepath.Join(dir, "link.csv")
	os.Symlink(plain, link)
	for _, p := range []string{plain, link} {
		f, err := Open(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f.Close()
	}
	bad := map[string]string{dir: "a directory"}
	if runtime.GOOS != "windows" {
		fifo := filepath.Join(dir, "fifo.csv")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		bad[fifo] = "a named pipe"
		bad["/dev/zero"] = "a device"
	}
	for p, want := range bad {
		done := make(chan error, 1)
		go func() { _, err := Open(p); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s: %v, want %q", p, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: Open blocked", p)
		}
	}
}

// TestReadFileLimit: a file up to the limit is read whole; a larger one
// is refused, naming its size and the limit.
func TestReadFileLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.json")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	if b, err := ReadFile(p, 10); err != nil || string(b) != "0123456789" {
		t.Fatalf("at the limit: %q, %v", b, err)
	}
	if _, err := ReadFile(p, 9); err == nil || !strings.Contains(err.Error(), "10 bytes, more than the 9") {
		t.Errorf("past the limit: %v", err)
	}
}
