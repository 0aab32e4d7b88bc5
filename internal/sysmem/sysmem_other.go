//go:build !linux

package sysmem

// PeakRSS is not measured on this system.
func PeakRSS() (bytes int64, ok bool) { return 0, false }

// Total is not known on this system.
func Total() (bytes int64, ok bool) { return 0, false }
