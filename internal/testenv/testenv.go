// Package testenv applies the environment's BLAS backend and kernel path
// to a package's tests, as the command line does for a run, so that each
// pass of make test (OpenBLAS, generic kernels) reaches every package.
package testenv

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/backend"
)

// Main installs the backends the environment names (backend.FromEnv),
// runs the tests and exits; a package's TestMain calls it.
func Main(m *testing.M) {
	if err := backend.FromEnv(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// WriteFile writes b as the file name in dir and returns its path.
func WriteFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Gzip returns b gzip-compressed.
func Gzip(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// WantErr checks that err is an error whose message contains every part.
func WantErr(t testing.TB, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("no error, want one containing %q", parts)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

// Allocated returns the bytes the program allocated while fn ran.
func Allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// DenseEqual reports whether a holds exactly the r x c row-major values
// want.
func DenseEqual(a interface {
	Dims() (r, c int)
	At(i, j int) float64
}, r, c int, want []float64) bool {
	if ar, ac := a.Dims(); ar != r || ac != c {
		return false
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if a.At(i, j) != want[i*c+j] {
				return false
			}
		}
	}
	return true
}
