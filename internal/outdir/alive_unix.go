//go:build unix

package outdir

import (
	"errors"
	"syscall"
)

// alive reports whether process pid may exist: a signal 0 to it finds
// it, or is refused because it belongs to someone else.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
