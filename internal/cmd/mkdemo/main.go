// Command mkdemo writes the embedded demo data set, testdata/demo, from
// TDT2: a seeded sample of documents from ten topics, raw term counts with
// the terms they never use dropped. Run from the module root:
//
//	go run ./internal/cmd/mkdemo -data ../shared/data/tdt2/TDT2.mat -out testdata/demo
package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/manifactor/manifactor/dataset"
)

func main() {
	data := flag.String("data", "../shared/data/tdt2/TDT2.mat", "TDT2.mat")
	out := flag.String("out", "testdata/demo", "output directory")
	perClass := flag.Int("per-class", 150, "documents drawn from each topic")
	classes := flag.Int("classes", 10, "topics, the first ones by label")
	seed := flag.Uint64("seed", 2026, "sampling seed")
	flag.Parse()
	if err := run(*data, *out, *perClass, *classes, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "mkdemo:", err)
		os.Exit(1)
	}
}

func run(data, out string, perClass, classes int, seed uint64) error {
	ds, err := dataset.Load(data, dataset.LoadOptions{})
	if err != nil {
		return err
	}
	labels, _ := ds.Classes()
	if len(labels) < classes {
		return fmt.Errorf("%s has %d classes, fewer than %d", data, len(labels), classes)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	var pick []int
	for _, l := range labels[:classes] {
		var members []int
		for i, x := range ds.Labels {
			if x == l {
				members = append(members, i)
			}
		}
		rng.Shuffle(len(members), func(a, b int) { members[a], members[b] = members[b], members[a] })
		pick = append(pick, members[:min(perClass, len(members))]...)
	}
	sort.Ints(pick)
	sub := ds.SelectSamples(pick)
	sub.DropZeroFeatures()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(out, "tdt2-demo.mtx.gz"))
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err := dataset.WriteMatrixMarket(zw, sub.Sparse); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	lf, err := os.Create(filepath.Join(out, "tdt2-demo.labels"))
	if err != nil {
		return err
	}
	for _, l := range sub.Labels {
		fmt.Fprintln(lf, l)
	}
	if err := lf.Close(); err != nil {
		return err
	}
	n, m := sub.Dims()
	fmt.Printf("wrote %s: %d documents x %d terms, %d non-zeros, %d topics\n", out, n, m, sub.NNZ(), classes)
	return nil
}
