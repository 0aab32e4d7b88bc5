package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startCommand starts this test binary as manifactor with args (see
// TestMain).
func startCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MANIFACTOR_TEST_MAIN=1")
	return cmd
}

// exitCode returns the status of a finished command, or -1 when a signal
// killed it.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("wait: %v", err)
	}
	return ee.ExitCode()
}

// waitOpen waits until process pid holds path open (Linux /proc), or the
// process ends.
func waitOpen(t *testing.T, pid int, path string, done <-chan struct{}) bool {
	t.Helper()
	fds := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	for {
		select {
		case <-done:
			return false
		default:
		}
		entries, _ := os.ReadDir(fds)
		for _, e := range entries {
			if target, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && target == path {
				return true
			}
		}
		time.Sleep(time.Millisecond)
	}
}

// TestInterruptDuringLoad (issue 15): SIGINT while a large file is being
// read stops the read: status 130, the file named, nothing on stdout,
// where the read would otherwise have gone on to its end and exit 0.
func TestInterruptDuringLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads an 8 MB file in a process of its own")
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc to see when the process has the file open")
	}
	data := filepath.Join(t.TempDir(), "long.csv")
	// About half a second to read on the machine this was written on.
	if err := os.WriteFile(data, bytes.Repeat([]byte("1,2,3,4\n"), 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := startCommand(t, "describe", "--data", data)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var werr error
	go func() { werr = cmd.Wait(); close(done) }()
	// The handler is installed before anything is opened (main's first
	// statement), so a signal once the file is open is the load's.
	if !waitOpen(t, cmd.Process.Pid, data, done) {
		t.Fatalf("the process ended before it opened the file: %s", stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	<-done
	if code := exitCode(t, werr); code != 130 {
		t.Fatalf("exit status %d, want 130; stderr %q", code, stderr.String())
	}
	if s := stderr.String(); !strings.Contains(s, "long.csv") || !strings.Contains(s, "canceled") {
		t.Errorf("stderr %q: want the file named and the cancellation", s)
	}
	if stdout.Len() != 0 {
		t.Errorf("an interrupted describe printed %q", stdout.String())
	}
}

// TestInterruptExperiment (issue 15): SIGINT during an experiment prints
// the table of the runs done, marked partial, and exits 130.
func TestInterruptExperiment(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an experiment in a process of its own")
	}
	mtx, labels := writeFixture(t, t.TempDir())
	// 6,000 runs, a second or more: the first progress line (a tenth of
	// the runs) comes long before the end.
	cmd := startCommand(t, "experiment", "--data", mtx, "--labels", labels, "--methods", "nmf",
		"--clusters", "2-3", "--runs", "3000", "--format", "json")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(pipe)
	var stderr strings.Builder
	signalled := false
	for sc.Scan() {
		stderr.WriteString(sc.Text() + "\n")
		if !signalled && strings.Contains(sc.Text(), "of 6000 runs") {
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			signalled = true
		}
	}
	code := exitCode(t, cmd.Wait())
	if !signalled {
		t.Fatalf("no progress line before the end (status %d): %s", code, stderr.String())
	}
	if code != 130 {
		t.Fatalf("exit status %d, want 130; stderr %q", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "partial table: interrupted after") {
		t.Errorf("stderr %q does not say the table is partial", stderr.String())
	}
	if !strings.Contains(stdout.String(), `"runs_total": 6000`) {
		t.Errorf("stdout %q: want the partial table", stdout.String())
	}
}
