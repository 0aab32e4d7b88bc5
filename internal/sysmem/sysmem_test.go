package sysmem

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
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

// anonHuge returns the process's anonymous memory in huge pages, in
// bytes, from /proc/self/smaps_rollup.
func anonHuge(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		t.Skipf("no smaps_rollup: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "AnonHugePages:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("smaps_rollup has no AnonHugePages")
	return 0
}

// TestHugePages: advised fresh memory is backed by huge pages once
// written, where the kernel gives them on request, and advising memory
// already written leaves its contents alone.
func TestHugePages(t *testing.T) {
	if runtime.GOOS != "linux" {
		HugePages(make([]byte, MinHuge)) // does nothing, must not fail
		return
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages are off here (%q, %v)", mode, err)
	}
	// Memory the process has touched and still holds keeps its 4 KiB
	// pages (TestReports leaves 64 MiB of it): give it back first, so
	// that the slice below is fresh.
	debug.FreeOSMemory()
	before := anonHuge(t)
	s := make([]float64, 64<<20/8)
	HugePages(s)
	for i := range s {
		s[i] = float64(i)
	}
	if got := anonHuge(t) - before; got < 32<<20 {
		t.Errorf("64 MiB written after the advice: %d MiB more in huge pages, want at least 32", got>>20)
	}
	HugePages(s)
	for i, v := range s {
		if v != float64(i) {
			t.Fatalf("s[%d] = %v after a second advice, want %d", i, v, i)
		}
	}
	small := []int{1, 2, 3}
	HugePages(small)
	if small[2] != 3 {
		t.Error("advice on a small slice changed it")
	}
	runtime.KeepAlive(s)
}

// TestTouch: touching the pages of a fresh array leaves it as it was, for
// any number of goroutines and an array that does not start or end on a
// page; arrays below MinHuge are left alone.
func TestTouch(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 8} {
		s := make([]float64, MinHuge/8+1001)[3:]
		Touch(s, threads)
		for i, v := range s {
			if v != 0 {
				t.Fatalf("threads %d: s[%d] = %v after Touch", threads, i, v)
			}
		}
	}
	small := make([]int32, 100)
	Touch(small, 4)
	for i, v := range small {
		if v != 0 {
			t.Fatalf("small: s[%d] = %v", i, v)
		}
	}
}
