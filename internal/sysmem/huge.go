package sysmem

import (
	"sync"
	"unsafe"
)

// MinHuge is the smallest array, in bytes, that HugePages advises: below
// it the 2 MiB pages' rounding would cost more than the page faults they
// save.
const MinHuge = 32 << 20

// HugePages asks the kernel to back s's memory with transparent huge
// pages (madvise MADV_HUGEPAGE) when s takes at least MinHuge bytes. It
// pays when s is fresh memory about to be written: each first touch of a
// 4 KiB page faults, and a large array took markedly longer to fill in
// 4 KiB pages than in 2 MiB pages (measured: docs/PERFORMANCE.md).
// Memory the process already touched keeps its pages.
// The contents are unchanged; where the kernel refuses or the system has
// no such advice, nothing happens.
func HugePages[E any](s []E) {
	var e E
	n := uintptr(len(s)) * unsafe.Sizeof(e)
	if n < MinHuge {
		return
	}
	adviseHuge(unsafe.Pointer(unsafe.SliceData(s)), n)
}

// Touch writes a zero byte every 4 KiB of s (so into every page but
// perhaps the last, partly covered one) from up to threads goroutines,
// so that the kernel maps and clears s's fresh pages in parallel rather
// than in the one goroutine that fills s later. s must be memory that
// reads as zero and that nothing else writes yet (a fresh make, before it
// is filled), so the contents do not change. Below MinHuge it does
// nothing. A large fresh array mapped markedly faster on two threads than
// on one (measured: docs/PERFORMANCE.md).
func Touch[E any](s []E, threads int) {
	var e E
	n := int(uintptr(len(s)) * unsafe.Sizeof(e))
	if n < MinHuge || threads < 2 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), n)
	var wg sync.WaitGroup
	for w := range threads {
		lo, hi := w*n/threads, (w+1)*n/threads
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Offsets 4 KiB apart fall in consecutive pages; each range
			// starts at the first such offset at or after lo.
			for p := (lo + 4095) &^ 4095; p < hi; p += 4096 {
				b[p] = 0
			}
		}()
	}
	wg.Wait()
}
