package sysmem

import "fmt"

// FormatBytes writes b in GB, MB or kB with two decimals, whichever
// leaves at least one unit, or in bytes: a limit of 1 kB once read "0.00
// GB".
func FormatBytes(b int64) string {
	for _, u := range []struct {
		size float64
		name string
	}{{1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}} {
		if float64(b) >= u.size {
			return fmt.Sprintf("%.2f %s", float64(b)/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", b)
}
