//go:build !unix

package fileio

import "os"

// openNonblocking is a plain open where O_NONBLOCK does not exist.
func openNonblocking(path string) (*os.File, error) { return os.Open(path) }
