package sysmem

import (
	"runtime"
	"testing"
)

// TestReports: on Linux the peak grows past a fresh 64 MiB allocation that
// is touched, and the machine has more memory than the process uses.
func TestReports(t *testing.T) {
	if runtime.GOOS != "linux" {
		if _, ok := PeakRSS(); ok {
			t.Error("PeakRSS claims a value off Linux")
		}
		return
	}
	before, ok := PeakRSS()
	if !ok || before <= 0 {
		t.Fatalf("PeakRSS = %d, %v", before, ok)
	}
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = byte(i)
	}
	after, _ := PeakRSS()
	if after < before || after < 64<<20 {
		t.Errorf("peak %d after touching 64 MiB (before %d)", after, before)
	}
	runtime.KeepAlive(b)
	total, ok := Total()
	if !ok || total < after {
		t.Errorf("Total = %d, %v; the process has used %d", total, ok, after)
	}
}
