//go:build !linux

package sysmem

import "unsafe"

// PeakRSS is not measured on this system.
func PeakRSS() (bytes int64, ok bool) { return 0, false }

// Total is not known on this system.
func Total() (bytes int64, ok bool) { return 0, false }

// adviseHuge does nothing on this system.
func adviseHuge(p unsafe.Pointer, n uintptr) {}
