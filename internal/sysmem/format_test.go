package sysmem

import "testing"

func TestFormatBytes(t *testing.T) {
	for b, want := range map[int64]string{0: "0 bytes", 999: "999 bytes", 1000: "1.00 kB", 1500000: "1.50 MB", 6e9: "6.00 GB", 1.5e12: "1500.00 GB"} {
		if got := FormatBytes(b); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", b, got, want)
		}
	}
}
