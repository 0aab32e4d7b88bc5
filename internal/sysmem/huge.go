package sysmem

import "unsafe"

// MinHuge is the smallest array, in bytes, that HugePages advises: below
// it the 2 MiB pages' rounding would cost more than the page faults they
// save.
const MinHuge = 32 << 20

// HugePages asks the kernel to back s's memory with transparent huge
// pages (madvise MADV_HUGEPAGE) when s takes at least MinHuge bytes. It
// pays when s is fresh memory about to be written: each first touch of a
// 4 KiB page faults, and on the virtual machine of bench/RESULTS.md a
// 1.1 GB array took 1.7-2.3 s to fill in 4 KiB pages against 0.08-1.1 s
// in 2 MiB pages. Memory the process already touched keeps its pages.
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
