package sysmem

import (
	"syscall"
	"testing"
	"unsafe"
)

// TestTouchMapsPages: after Touch with two or more goroutines every page
// of the array is resident (mincore), which a fresh array's pages are not
// until written.
func TestTouchMapsPages(t *testing.T) {
	s := make([]float64, 2*MinHuge/8)
	Touch(s, 3)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*8)
	// mincore wants a page-aligned start; take the whole pages inside s.
	skip := int((4096 - uintptr(unsafe.Pointer(&b[0]))%4096) % 4096)
	b = b[skip : skip+(len(b)-skip)&^4095]
	vec := make([]byte, len(b)/4096)
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Skipf("mincore: %v", errno)
	}
	for p, v := range vec {
		if v&1 == 0 {
			t.Fatalf("page %d of %d not resident after Touch", p, len(vec))
		}
	}
}
