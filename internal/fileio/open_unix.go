//go:build unix

package fileio

import (
	"os"
	"syscall"
)

// openNonblocking opens path without waiting for a FIFO's writer; on a
// regular file, which Open alone returns, O_NONBLOCK changes nothing.
func openNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
