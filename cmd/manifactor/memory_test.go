//go:build linux

package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHostileFilesMemory (issue 15): small files claiming or expanding to
// gigabytes end in an error naming the file, with exit status 1 and a
// peak resident memory under 1 GB, measured on the command run as a
// process of its own (this test binary as manifactor).
func TestHostileFilesMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command as processes")
	}
	dir := t.TempDir()
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	h := "{'descr': '|u1', 'fortran_order': False, 'shape': (32768, 32768), }"
	h += strings.Repeat(" ", 118-len(h)-1) + "\n"
	npy := append([]byte("\x93NUMPY\x01\x00v\x00"), h...)
	line := bytes.Repeat([]byte("1,"), 1<<22)
	files := map[string][]byte{
		"huge.mtx":    []byte("%%MatrixMarket matrix coordinate real general\n16777216 16777216 1\n1 1 1\n"),
		"big.npy.gz":  gz(append(npy, make([]byte, 1<<20)...)),
		"line.csv.gz": gz(line),
		// 72 MB of short lines in 0.6 MB.
		"lines.svm.gz": gz(bytes.Repeat([]byte("1 1:1\n"), 12<<20)),
	}
	for name, b := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, sub := range []string{"describe", "cluster"} {
			args := []string{sub, "--data", path, "--quiet"}
			if sub == "cluster" {
				args = append(args, "--k", "2", "--keep-zero-features")
			}
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "MANIFACTOR_TEST_MAIN=1")
			out, err := cmd.CombinedOutput()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), path) {
				t.Errorf("%s %s: %v, output %q", sub, name, err, out)
				continue
			}
			peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024 // KiB on Linux
			if peak > 1e9 {
				t.Errorf("%s %s: peak memory %d bytes before the error", sub, name, peak)
			}
			t.Logf("%s %s (%d bytes): peak %.0f MB: %s", sub, name, len(b), float64(peak)/1e6, strings.TrimSpace(string(out)))
		}
	}
}

// TestJobBoundBySmallFile: without --memory a job on a small file may
// take 64 times its size (at least 1 GiB): a graph of 19,999 neighbours
// per sample on a 20,000-sample file of 0.2 MB is refused before the
// search, naming the estimate and the bound.
func TestJobBoundBySmallFile(t *testing.T) {
	var b strings.Builder
	const n = 20000
	fmt.Fprintf(&b, "%%%%MatrixMarket matrix coordinate real general\n%d 3 %d\n", n, n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d %d 1\n", i, 1+i%3)
	}
	path := filepath.Join(t.TempDir(), "many.mtx")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := runCLI(t, "graph", "--data", path, "--neighbors", fmt.Sprint(n-1), "--out", filepath.Join(t.TempDir(), "g.mtx"))
	if err == nil || !strings.Contains(err.Error(), "default for a file of") || !strings.Contains(err.Error(), "graph") || !strings.Contains(err.Error(), "--memory") {
		t.Errorf("%v", err)
	}
}
