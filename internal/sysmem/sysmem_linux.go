//go:build linux

package sysmem

import (
	"syscall"
	"unsafe"
)

// PeakRSS returns the largest resident set size the process has had, in
// bytes (getrusage's ru_maxrss, which Linux gives in KiB).
func PeakRSS() (bytes int64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return int64(ru.Maxrss) * 1024, true
}

// Total returns the machine's physical memory in bytes (sysinfo).
func Total() (bytes int64, ok bool) {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0, false
	}
	return int64(si.Totalram) * int64(si.Unit), true
}

// adviseHuge advises the whole 4 KiB pages inside the n bytes at p.
func adviseHuge(p unsafe.Pointer, n uintptr) {
	const page = 4096
	skip := (page - uintptr(p)%page) % page
	if n <= skip {
		return
	}
	length := (n - skip) &^ (page - 1)
	if length == 0 {
		return
	}
	// The advice is a hint: an error (an old kernel without it) changes
	// nothing but the speed.
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, skip)), length), syscall.MADV_HUGEPAGE)
}
