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
)

// mpirunCLI runs this test binary as manifactor on np ranks.
func mpirunCLI(t *testing.T, np int, args ...string) ([]byte, error) {
	t.Helper()
	path, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun not found: install OpenMPI (Debian: openmpi-bin libopenmpi-dev)")
	}
	full := []string{"--oversubscribe", "-np", strconv.Itoa(np)}
	if os.Getuid() == 0 {
		full = append(full, "--allow-run-as-root")
	}
	full = append(full, os.Args[0])
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append(full, args...)...)
	cmd.Env = append(os.Environ(), "MANIFACTOR_TEST_MAIN=1", "OMPI_MCA_btl_vader_single_copy_mechanism=none")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("mpirun -np %d %v hung: %s", np, args, out)
	}
	return out, err
}

// TestDistributedFitMatchesOneProcess: fit --distributed on 1 to 4 ranks
// (every grid shape the default and --grid give), nmf and gnmf, reaches
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
	for _, c := range []struct {
		np    int
		grid  string
		graph bool
	}{{1, "", false}, {2, "", false}, {2, "1x2", false}, {3, "", false}, {4, "2x2", false}, {4, "1x4", false},
		{2, "", true}, {3, "", true}, {4, "2x2", true}} {
		out := filepath.Join(dir, "d"+strconv.Itoa(c.np)+c.grid+strconv.FormatBool(c.graph))
		args := append(common, "--distributed", "--out", out)
		want := want
		if c.graph {
			args, want = append(args, gnmf...), wantG
		}
		if c.grid != "" {
			args = append(args, "--grid", c.grid)
		}
		text, err := mpirunCLI(t, c.np, args...)
		if err != nil {
			t.Fatalf("%d ranks, grid %q: %v\n%s", c.np, c.grid, err, text)
		}
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			Objective float64 `json:"objective"`
			Ranks     int     `json:"ranks"`
			Grid      string  `json:"grid"`
			Words     int     `json:"words_per_iter"`
			Measured  int     `json:"words_per_iter_measured"`
		}
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Ranks != c.np || (c.grid != "" && sum.Grid != c.grid) {
			t.Errorf("%d ranks, grid %q: summary says %d ranks, grid %s", c.np, c.grid, sum.Ranks, sum.Grid)
		}
		if math.Abs(sum.Objective-want) > 1e-9*want {
			t.Errorf("%d ranks, grid %s, graph %v: objective %v, one process %v", c.np, sum.Grid, c.graph, sum.Objective, want)
		}
		if sum.Measured != sum.Words {
			t.Errorf("%d ranks, grid %s, graph %v: %d values moved per iteration, the formula says %d", c.np, sum.Grid, c.graph, sum.Measured, sum.Words)
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

// TestDistributedFitTDT2: on TDT2 (prepared as fit prepares it) 2 and 3
// ranks reach the one-process objective to 1e-9 relative, and the values
// moved per iteration are the formula's.
func TestDistributedFitTDT2(t *testing.T) {
	data := realData(t, "tdt2/TDT2.mat")
	dir := t.TempDir()
	common := []string{"fit", "--data", data, "--k", "10", "--iters", "10", "--tol", "0", "--seed", "1", "--quiet", "--json"}
	ref, _, err := runCLI(t, append(common, "--out", filepath.Join(dir, "ref"), "--solver", "mu", "--pg-tol", "0")...)
	if err != nil {
		t.Fatal(err)
	}
	want := decode(t, ref)["objective"].(float64)
	for _, np := range []int{2, 3} {
		out := filepath.Join(dir, "d"+strconv.Itoa(np))
		text, err := mpirunCLI(t, np, append(common, "--distributed", "--out", out)...)
		if err != nil {
			t.Fatalf("%d ranks: %v\n%s", np, err, text)
		}
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			Objective float64 `json:"objective"`
			Words     int     `json:"words_per_iter"`
			Measured  int     `json:"words_per_iter_measured"`
		}
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		if math.Abs(sum.Objective-want) > 1e-9*want {
			t.Errorf("%d ranks: objective %v, one process %v", np, sum.Objective, want)
		}
		if sum.Words == 0 || sum.Measured != sum.Words {
			t.Errorf("%d ranks: %d values moved per iteration, the formula says %d", np, sum.Measured, sum.Words)
		}
	}
}
