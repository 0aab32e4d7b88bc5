//go:build unix

package dataset

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestTextDirSkipsSpecialFiles: a FIFO (which would block a reader
// forever) and a link to a device in a text directory are not read: only
// regular files are documents.
func TestTextDirSkipsSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "doc.txt"), []byte("oil prices rose"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "a", "pipe.txt"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "a", "zero.txt"))
	done := make(chan error, 1)
	go func() {
		d, _, err := LoadTextDir(context.Background(), dir, TextOptions{})
		if err == nil {
			if n, _ := d.Dims(); n != 1 {
				t.Errorf("%d documents, want the one regular file", n)
			}
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hung on the FIFO")
	}
}
