package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/manifactor/manifactor/internal/backend"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	stop := onSignal(cancel)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			// -h asked for the usage, which went to stdout: not a failure.
			return
		}
		fmt.Fprintln(os.Stderr, "manifactor:", printable(err.Error()))
		if errors.Is(err, context.Canceled) {
			os.Exit(130)
		}
		os.Exit(1)
	}
}

// signalGrace is how long work may take to stop after SIGINT or SIGTERM
// before the process ends anyway.
const signalGrace = 10 * time.Second

// onSignal cancels the run's context on the first SIGINT or SIGTERM, so
// that long work stops at its next check and outputs stay as they were;
// work that does not return within signalGrace, or a second signal, ends
// the process (status 130). An output directory being written is then
// left as a temporary one beside it, which the next run into the same
// place removes. The returned function stops listening.
func onSignal(cancel func()) (stop func()) {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
		case <-done:
			return
		}
		cancel()
		select {
		case <-sig:
		case <-time.After(signalGrace):
		case <-done:
			return
		}
		fmt.Fprintln(os.Stderr, "manifactor: interrupted")
		os.Exit(130)
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}

type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"info", "build, BLAS backend, kernel path, CPU and threads", runInfo},
		{"describe", "shape, sparsity and classes of a data set", runDescribe},
		{"fit", "factorize a data set and write U, V, labels and a summary", runFit},
		{"transform", "place new samples on the factors of a model that fit --out saved, and cluster them", runTransform},
		{"cluster", "cluster a data set and score it against its labels", runCluster},
		{"graph", "build a p-nearest-neighbour graph of a data set", runGraph},
		{"split", "write a data set as row blocks, for fit --distributed to read each rank's own", runSplit},
		{"topics", "factorize and show each factor's strongest terms and dominant class", runTopics},
		{"experiment", "the papers' protocol: k random classes, R runs, mean and deviation per k", runExperiment},
		{"sweep", "the protocol's average score against lambda or p (the papers' sensitivity figures)", runSweep},
		{"rank", "choose k: cross-validate the rank on hidden entries", runRank},
		{"bench", "time the factorization loop on a data set", runBench},
		{"demo", "cluster the embedded Reuters-21578 sample (800 raw articles) and score it", runDemo},
	}
}

// run is the whole program minus process exit, so tests can drive it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 2 && args[0] == "help" && args[1] == "reference" {
		return writeReference(stdout)
	}
	if len(args) == 2 && args[0] == "help" {
		args = []string{args[1], "--help"}
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return errors.New("no sub-command given")
		}
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			// The environment's backends, which the command's --blas and
			// --simd override: the library reads no environment.
			if err := backend.FromEnv(); err != nil {
				return err
			}
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	usage(stderr)
	return fmt.Errorf("unknown sub-command %q", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: manifactor <sub-command> [options]\n\nSub-commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'manifactor <sub-command> --help' for its options, 'manifactor help reference'\nfor every command's (docs/cli.md).")
}

// printable escapes what would act on a terminal rather than show: the
// control characters (a newline forges a second line, an escape sequence
// recolours or moves the cursor), the marks that reorder text, and bytes
// that are not UTF-8. File names and values from the data reach notes and
// errors, and a user reads them there.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || reorders(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) || reorders(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// reorders reports the bidirectional formatting characters.
func reorders(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f
}
