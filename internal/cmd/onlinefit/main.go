// Command onlinefit runs package solver/minibatch on a Matrix Market
// matrix (samples x features), for bench/online_gensim.py, which runs
// gensim's online Nmf on the same file. It fits and writes the basis U
// (features x k, Matrix Market array), or scores a basis written by
// either: the rows of V fitted to it by non-negative least squares, and
// ||X - V U^T||^2, so that both bases are judged with the same V.
//
//	onlinefit --data X.mtx --k K [--passes P] [--batch B] [--seed S] --out U.mtx
//	onlinefit --data X.mtx --score U.mtx [--sweeps 50]
//
// A corpus streamed from a parts directory is fit's (manifactor fit
// --solver minibatch), which the bench script runs instead.
//
// It prints JSON: the seconds of the fit, or the objective and its ratio
// to ||X||^2.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/solver/minibatch"
	"github.com/manifactor/manifactor/sparse"
)

func main() {
	data := flag.String("data", "", "samples x features, Matrix Market coordinate")
	k := flag.Int("k", 0, "factors")
	passes := flag.Int("passes", 1, "passes over the data")
	batch := flag.Int("batch", 2000, "samples a batch")
	seed := flag.Uint64("seed", 1, "seed")
	out := flag.String("out", "", "write U here")
	score := flag.String("score", "", "score this basis (features x k, or k x features)")
	sweeps := flag.Int("sweeps", 50, "NNLS sweeps when scoring")
	flag.Parse()
	if err := run(*data, *k, *passes, *batch, *seed, *out, *score, *sweeps); err != nil {
		fmt.Fprintln(os.Stderr, "onlinefit:", err)
		os.Exit(1)
	}
}

func run(data string, k, passes, batch int, seed uint64, out, score string, sweeps int) error {
	x, _, err := matrixio.ReadMatrixMarketFile(data)
	if err != nil {
		return err
	}
	if x == nil {
		return errors.New("want a coordinate (sparse) matrix")
	}
	ctx := context.Background()
	if score != "" {
		return scoreBasis(ctx, x, score, sweeps)
	}
	md, err := minibatch.New(x.Cols, minibatch.Options{K: k, BatchSize: batch, Seed: seed})
	if err != nil {
		return err
	}
	begin := time.Now()
	if err := md.Fit(ctx, x, passes); err != nil {
		return err
	}
	return finish(md, time.Since(begin).Seconds(), passes, batch, out)
}

// finish writes U to out and prints the fit's seconds.
func finish(md *minibatch.Model, secs float64, passes, batch int, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := matrixio.WriteMatrixMarketDense(f, md.U()); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"seconds": secs, "passes": passes, "batch": batch})
}

// scoreBasis fits V to the basis in path and prints the objective.
func scoreBasis(ctx context.Context, x *sparse.CSR, path string, sweeps int) error {
	_, u, err := matrixio.ReadMatrixMarketFile(path)
	if err != nil {
		return err
	}
	if u == nil {
		return fmt.Errorf("%s: want a dense array", path)
	}
	if r, c := u.Dims(); r != x.Cols && c == x.Cols {
		u = mat.DenseCopyOf(u.T())
	}
	m, k := u.Dims()
	if m != x.Cols {
		return fmt.Errorf("%s: %d x %d basis for %d features", path, m, k, x.Cols)
	}
	md, err := minibatch.New(m, minibatch.Options{K: k, Sweeps: sweeps})
	if err != nil {
		return err
	}
	if err := md.SetU(u); err != nil {
		return err
	}
	v, err := md.Transform(ctx, x)
	if err != nil {
		return err
	}
	obj := md.Objective(x, v)
	var xx float64
	for _, a := range x.Val {
		xx += a * a
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"objective": obj, "relative": obj / xx})
}
