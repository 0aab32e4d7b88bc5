package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/dist/mpi"
)

// TestDistributedFlags: what --distributed does not have yet is an error
// naming the flag, --grid needs --distributed, and a build without MPI
// says how to get one.
func TestDistributedFlags(t *testing.T) {
	dir := t.TempDir()
	mtx, _ := writeFixture(t, dir)
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--distributed", "--restarts", "3"}, "--restarts: not available with --distributed"},
		{[]string{"--distributed", "--lambda", "10"}, "--lambda: nmf takes no graph"},
		{[]string{"--distributed", "--method", "lccf"}, "--method lccf: --distributed runs nmf, gnmf and nmf-kl only"},
		{[]string{"--distributed", "--method", "gnmf"}, "--distributed gnmf needs a weight > 0"},
		{[]string{"--distributed", "--method", "gnmf", "--lambda", "auto"}, "--distributed gnmf needs a weight > 0"},
		{[]string{"--distributed", "--solver", "cd", "--method", "nmf-kl"}, "--solver cd: --distributed runs coordinate descent for nmf only"},
		{[]string{"--distributed", "--solver", "cd", "--method", "gnmf", "--lambda", "10"}, "--solver cd: --distributed runs coordinate descent for nmf only"},
		{[]string{"--distributed", "--solver", "minibatch"}, "--solver minibatch: runs on one process"},
		{[]string{"--grid", "2x2"}, "--grid 2x2: only with --distributed"},
	} {
		args := append([]string{"fit", "--data", mtx, "--k", "3", "--out", out}, c.args...)
		if _, _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	if !mpi.Available {
		_, _, err := runCLI(t, "fit", "--data", mtx, "--k", "3", "--out", out, "--distributed")
		if err == nil || !strings.Contains(err.Error(), "-tags mpi") {
			t.Errorf("--distributed without MPI: %v", err)
		}
	}
}
