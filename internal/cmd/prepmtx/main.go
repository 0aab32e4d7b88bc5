// Command prepmtx writes a corpus prepared as fit prepares it by default
// (dataset.Load, then model.Prepare: log tf-idf and unit length for term
// counts, the features no document uses dropped) as one Matrix Market
// file, documents as rows, for peers that stream a file from disk
// (gensim's MmCorpus in bench/online_gensim.py). It is bench/prepare.py
// in Go, for corpora where SciPy's writer takes too long.
//
//	go run ./internal/cmd/prepmtx --data D --out X.mtx
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/model"
)

func main() {
	data := flag.String("data", "", "a corpus of term counts manifactor reads")
	out := flag.String("out", "", "the Matrix Market file to write")
	flag.Parse()
	if err := run(*data, *out); err != nil {
		fmt.Fprintln(os.Stderr, "prepmtx:", err)
		os.Exit(1)
	}
}

func run(data, out string) error {
	ds, err := dataset.Load(context.Background(), data, dataset.LoadOptions{MemoryLimit: -1})
	if err != nil {
		return err
	}
	p, err := model.Prepare(ds, model.PrepareOptions{})
	if err != nil {
		return err
	}
	if p.Data.Sparse == nil {
		return fmt.Errorf("%s: dense data", data)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = matrixio.WriteMatrixMarket(w, p.Data.Sparse)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	n, m := p.Data.Dims()
	fmt.Fprintf(os.Stderr, "%s: %d samples x %d features, %d non-zeros, %v weighting\n", out, n, m, p.Data.NNZ(), p.Weighting)
	return nil
}
