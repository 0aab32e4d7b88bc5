package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/matrixio"
)

// runSplit is the split command: a data set written as row blocks (a
// parts directory, dataset.WriteParts) for the ranks of fit
// --distributed, each of which then reads only its own samples' blocks.
func runSplit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("split", "--data D --parts P --out DIR [options]", stdout, stderr)
	var df dataFlags
	var rt runtimeFlags
	df.registerRead(fs)
	df.registerText(fs)
	rt.register(fs)
	parts := fs.Int("parts", 0, "the number of row blocks, 1 to the number of samples (at least the ranks that will read it; more parts let each rank read less)")
	out := fs.String("out", "", "the directory to write (parts.json, part-NNNNN.mtx, labels.txt, features.txt, ids.txt)")
	asJSON := fs.Bool("json", false, "print the manifest as JSON")
	shuffle := fs.Bool("shuffle", false, "write the samples in a seeded random order (their ids kept), so that each part holds every class of a corpus stored class by class, date by date or source by source: what a streamed fit, taking a part at a time, needs")
	seed := fs.Uint64("seed", 1, "the seed of --shuffle's order")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	if set(fs, "seed") && !*shuffle {
		return errors.New("--seed orders the samples of --shuffle; without --shuffle they keep their order")
	}
	if *parts < 1 || *parts > maxParts {
		return fmt.Errorf("--parts %d: want 1 to %d (and at most the number of samples)", *parts, maxParts)
	}
	known := []string{matrixio.PartsFile, "labels.txt", "features.txt", "ids.txt"}
	for t := 0; t < *parts; t++ {
		known = append(known, matrixio.PartName(t))
	}
	od, err := beginOutput(*out, known, df.inputFiles()...)
	if err != nil {
		return err
	}
	defer od.Abort()
	// The data as read (term counts for a text corpus): fit prepares
	// them, with the whole corpus's statistics, when it reads the parts.
	ds, _, err := df.read(ctx, &rt)
	if err != nil {
		return err
	}
	if n, _ := ds.Dims(); *parts > n {
		return fmt.Errorf("--parts %d: %s has %d samples", *parts, df.path, n)
	}
	if err := dataset.WriteParts(ds, dataset.PartsOptions{Parts: *parts, Shuffle: *shuffle, Seed: *seed}, od.WriteFile); err != nil {
		return err
	}
	if err := od.Commit(); err != nil {
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	man, err := matrixio.ReadParts(*out)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, man)
	}
	fmt.Fprintf(stdout, "%s: %d samples x %d features (%d non-zeros) in %d parts of %d to %d samples\nwrote %s\n",
		df.path, man.Samples, man.Features, man.NNZ, len(man.Parts), man.Parts[len(man.Parts)-1].Rows, man.Parts[0].Rows, *out)
	return nil
}

// maxParts bounds --parts before the data is read (the count of samples
// is known only after): the output directory's file names are listed
// first, so that a bad --out fails before a long read, and a count in the
// billions exhausted memory listing them.
const maxParts = 1 << 20
