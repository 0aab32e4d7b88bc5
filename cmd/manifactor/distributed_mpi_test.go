//go:build cgo && mpi

package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/manifactor/manifactor/dist/disttest"
)

// distSummaryOf reads the summary.json a distributed fit wrote in dir.
func distSummaryOf(t *testing.T, dir string) distSummary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum distSummary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	return sum
}

// mpirunCLI runs this test binary as manifactor on np ranks.
func mpirunCLI(t *testing.T, np int, args ...string) ([]byte, error) {
	t.Helper()
	path, full, err := disttest.MPIRun(np)
	if err != nil {
		t.Skip(err)
	}
	full = append(full, os.Args[0])
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append(full, args...)...)
	cmd.Env = append(append(os.Environ(), "MANIFACTOR_TEST_MAIN=1"), disttest.MPIEnv...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("mpirun -np %d %v hung: %s", np, args, out)
	}
	return out, err
}

// TestDistributedFitMatchesOneProcess: fit --distributed on 1 to 4 ranks
// (every grid shape the default and --grid give), nmf, gnmf and nmf-kl, reaches
// the objective of a one-process fit with the same updates, start,
// graph and iterations to 1e-9 relative, moves the values the formula
// says, and rank 0 writes the factors.
func TestDistributedFitMatchesOneProcess(t *testing.T) {
	dir := t.TempDir()
	mtx, _ := writeFixture(t, dir)
	common := []string{"fit", "--data", mtx, "--k", "3", "--iters", "40", "--tol", "0", "--seed", "4", "--quiet", "--json"}
	ref, _, err := runCLI(t, append(common, "--out", filepath.Join(dir, "ref"), "--solver", "mu", "--pg-tol", "0")...)
	if err != nil {
		t.Fatal(err)
	}
	want := decode(t, ref)["objective"].(float64)
	gnmf := []string{"--method", "gnmf", "--lambda", "10", "--neighbors", "4"}
	refG, _, err := runCLI(t, append(append(common, gnmf...), "--out", filepath.Join(dir, "refg"), "--solver", "mu", "--pg-tol", "0")...)
	if err != nil {
		t.Fatal(err)
	}
	wantG := decode(t, refG)["objective"].(float64)
	kl := []string{"--method", "nmf-kl"}
	refK, _, err := runCLI(t, append(append(common, kl...), "--out", filepath.Join(dir, "refk"), "--solver", "mu", "--pg-tol", "0")...)
	if err != nil {
		t.Fatal(err)
	}
	wantK := decode(t, refK)["objective"].(float64)
	for _, c := range []struct {
		np     int
		grid   string
		method string
	}{{1, "", "nmf"}, {2, "", "nmf"}, {2, "1x2", "nmf"}, {3, "", "nmf"}, {4, "2x2", "nmf"}, {4, "1x4", "nmf"},
		{2, "", "gnmf"}, {3, "", "gnmf"}, {4, "2x2", "gnmf"}, {2, "", "nmf-kl"}, {4, "2x2", "nmf-kl"}} {
		out := filepath.Join(dir, "d"+strconv.Itoa(c.np)+c.grid+c.method)
		args := append(common, "--distributed", "--out", out)
		want := want
		switch c.method {
		case "gnmf":
			args, want = append(args, gnmf...), wantG
		case "nmf-kl":
			args, want = append(args, kl...), wantK
		}
		if c.grid != "" {
			args = append(args, "--grid", c.grid)
		}
		text, err := mpirunCLI(t, c.np, args...)
		if err != nil {
			t.Fatalf("%d ranks, grid %q: %v\n%s", c.np, c.grid, err, text)
		}
		sum := distSummaryOf(t, out)
		if sum.Ranks != c.np || (c.grid != "" && sum.Grid != c.grid) {
			t.Errorf("%d ranks, grid %q: summary says %d ranks, grid %s", c.np, c.grid, sum.Ranks, sum.Grid)
		}
		if math.Abs(sum.Objective-want) > 1e-9*want {
			t.Errorf("%d ranks, grid %s, %s: objective %v, one process %v", c.np, sum.Grid, c.method, sum.Objective, want)
		}
		if sum.WordsMeasured != sum.WordsPerIter {
			t.Errorf("%d ranks, grid %s, %s: %d values moved per iteration, the formula says %d", c.np, sum.Grid, c.method, sum.WordsMeasured, sum.WordsPerIter)
		}
		for _, f := range []string{"U.mtx", "V.mtx"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Errorf("%d ranks: %v", c.np, err)
			}
		}
	}
}

// TestDistributedFitFailure: an error on the ranks (a grid that does not
// fit the job) ends every rank with a non-zero status and the message,
// not a hang, and leaves no output directory.
func TestDistributedFitFailure(t *testing.T) {
	dir := t.TempDir()
	mtx, _ := writeFixture(t, dir)
	out := filepath.Join(dir, "out")
	text, err := mpirunCLI(t, 2, "fit", "--data", mtx, "--k", "3", "--distributed", "--grid", "3x1", "--out", out)
	if err == nil {
		t.Fatalf("exit 0: %s", text)
	}
	if !strings.Contains(string(text), "--grid 3x1: 3 ranks, but the job has 2") {
		t.Errorf("output lacks the error: %s", text)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed job left its output directory")
	}
}

// TestDistributedFitTDT2: on TDT2 (prepared as fit prepares it), nmf on
// 2 and 3 ranks and gnmf and nmf-kl on 2 reach the one-process objective
// to 1e-9 relative, and the values moved per iteration are the formula's.
func TestDistributedFitTDT2(t *testing.T) {
	data := realData(t, "tdt2/TDT2.mat")
	dir := t.TempDir()
	common := []string{"fit", "--data", data, "--k", "10", "--iters", "10", "--tol", "0", "--seed", "1", "--quiet", "--json"}
	for _, c := range []struct {
		method []string
		ranks  []int
	}{
		{[]string{"--method", "nmf"}, []int{2, 3}},
		{[]string{"--method", "gnmf", "--lambda", "10"}, []int{2}},
		{[]string{"--method", "nmf-kl"}, []int{2}},
	} {
		args := append(append([]string(nil), common...), c.method...)
		ref, _, err := runCLI(t, append(args, "--out", filepath.Join(dir, "ref"+c.method[1]), "--solver", "mu", "--pg-tol", "0")...)
		if err != nil {
			t.Fatal(err)
		}
		want := decode(t, ref)["objective"].(float64)
		for _, np := range c.ranks {
			out := filepath.Join(dir, c.method[1]+strconv.Itoa(np))
			text, err := mpirunCLI(t, np, append(args, "--distributed", "--out", out)...)
			if err != nil {
				t.Fatalf("%s on %d ranks: %v\n%s", c.method[1], np, err, text)
			}
			sum := distSummaryOf(t, out)
			if math.Abs(sum.Objective-want) > 1e-9*want {
				t.Errorf("%s on %d ranks: objective %v, one process %v", c.method[1], np, sum.Objective, want)
			}
			if sum.WordsPerIter == 0 || sum.WordsMeasured != sum.WordsPerIter {
				t.Errorf("%s on %d ranks: %d values moved per iteration, the formula says %d", c.method[1], np, sum.WordsMeasured, sum.WordsPerIter)
			}
		}
	}
}
