package sysmem

import (
	"syscall"
	"testing"
	"unsafe"
)

// TestTouchMapsPages: Touch on fresh anonymous memory (a new mapping, so
// none of it is resident yet, whatever the process freed before) leaves
// every page resident (mincore).
func TestTouchMapsPages(t *testing.T) {
	const size = 2 * MinHuge
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(b)
	resident := func() (n int) {
		vec := make([]byte, size/4096)
		if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
			t.Skipf("mincore: %v", errno)
		}
		for _, v := range vec {
			n += int(v & 1)
		}
		return n
	}
	if n := resident(); n == size/4096 {
		t.Skip("a fresh mapping is already resident here")
	}
	Touch(b, 3)
	if n := resident(); n != size/4096 {
		t.Fatalf("%d of %d pages resident after Touch", n, size/4096)
	}
	for i, v := range b {
		if v != 0 {
			t.Fatalf("b[%d] = %d after Touch", i, v)
		}
	}
}
