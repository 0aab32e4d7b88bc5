//go:build cgo && mpi

package mpi_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/manifactor/manifactor/dist/disttest"
	"github.com/manifactor/manifactor/dist/mpi"
)

// TestMain runs this test binary as an MPI rank program when mpirun
// started it for TestCollectivesUnderMPI (MANIFACTOR_MPI_RANK_TEST set).
func TestMain(m *testing.M) {
	if mode := os.Getenv("MANIFACTOR_MPI_RANK_TEST"); mode != "" {
		os.Exit(rankProgram(mode))
	}
	os.Exit(m.Run())
}

// rankProgram checks every collective on the world communicator and on
// a split of it; mode "fail" makes rank 1 fail while the others wait in
// a collective, as a rank that cannot read its block would.
func rankProgram(mode string) int {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	w := mpi.World()
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "rank %d: %v\n", w.Rank(), err)
		w.Abort(3)
		return 3
	}
	if mode == "fail" && w.Rank() == 1 {
		return fail(fmt.Errorf("cannot read block 1 (a test failure)"))
	}
	if err := disttest.Check(w); err != nil {
		return fail(err)
	}
	sub, err := w.Split(w.Rank()%2, w.Rank())
	if err != nil {
		return fail(err)
	}
	if want := (w.Size() - w.Rank()%2 + 1) / 2; sub.Size() != want {
		return fail(fmt.Errorf("split: %d ranks, want %d", sub.Size(), want))
	}
	if err := disttest.Check(sub); err != nil {
		return fail(err)
	}
	fmt.Printf("rank %d of %d ok\n", w.Rank(), w.Size())
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

// mpirun returns the command that runs this test binary on np ranks as a
// rank program, or skips the test when mpirun is missing.
func mpirun(t *testing.T, ctx context.Context, np int, mode string) *exec.Cmd {
	t.Helper()
	path, args, err := disttest.MPIRun(np)
	if err != nil {
		t.Skip(err)
	}
	args = append(args, os.Args[0], "-test.run=^$")
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(append(os.Environ(), "MANIFACTOR_MPI_RANK_TEST="+mode), disttest.MPIEnv...)
	return cmd
}

// TestCollectivesUnderMPI runs every collective's check (dist/disttest)
// on 1 to 4 ranks under mpirun, on the world communicator and a split.
func TestCollectivesUnderMPI(t *testing.T) {
	for np := 1; np <= 4; np++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		out, err := mpirun(t, ctx, np, "check").CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%d ranks: %v\n%s", np, err, out)
		}
		if got := strings.Count(string(out), " ok\n"); got != np {
			t.Errorf("%d ranks: %d reported ok\n%s", np, got, out)
		}
	}
}

// TestRankFailureEndsJob: a rank that fails while the others wait in a
// collective ends the whole job with a non-zero status and its message,
// not a hang.
func TestRankFailureEndsJob(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := mpirun(t, ctx, 3, "fail").CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the job hung: %s", out)
	}
	if err == nil {
		t.Fatalf("the job exited 0: %s", out)
	}
	if !strings.Contains(string(out), "rank 1: cannot read block 1") {
		t.Errorf("output lacks the failing rank's message:\n%s", out)
	}
}

// TestVersion: the library names itself.
func TestVersion(t *testing.T) {
	if v := mpi.Version(); v == "" {
		t.Error("empty version")
	}
}
