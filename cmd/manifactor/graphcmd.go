package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/manifactor/manifactor/graph"
)

type graphOutput struct {
	Data      string  `json:"data"`
	Samples   int     `json:"samples"`
	Edges     int     `json:"edges"`
	Neighbors int     `json:"neighbors"`
	Weight    string  `json:"weight"`
	Seconds   float64 `json:"seconds"`
	Out       string  `json:"out"`
}

func runGraph(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("graph", "--data D --neighbors P --weight binary|heat|cosine --out FILE.mtx [--json]", stderr)
	var df dataFlags
	var rt runtimeFlags
	var gf graphFlags
	df.register(fs)
	rt.register(fs)
	gf.register(fs, false)
	seed := fs.Uint64("seed", 1, "seed of the sample that sets the default heat kernel width")
	out := fs.String("out", "", "Matrix Market file for the n x n weight matrix")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	if gf.weight == "" {
		gf.weight = "binary"
	}
	if gf.neighbors < 1 {
		return fmt.Errorf("--neighbors %d: must be at least 1", gf.neighbors)
	}
	p, err := df.load()
	if err != nil {
		return err
	}
	t0 := time.Now()
	g, err := gf.buildGraph(ctx, p, *seed, rt.threads, stderr)
	if err != nil {
		return fmt.Errorf("%s: %w", p.ds.Source, err)
	}
	secs := time.Since(t0).Seconds()
	if err := writeFile(*out, func(w io.Writer) error { return graph.Write(w, g) }); err != nil {
		return err
	}
	o := graphOutput{Data: df.path, Samples: g.N(), Edges: g.Edges(), Neighbors: gf.neighbors, Weight: gf.weight, Seconds: secs, Out: *out}
	if *asJSON {
		return writeJSON(stdout, o)
	}
	fmt.Fprintf(stdout, "%d samples, %d edges (%d-NN, %s weights) in %.3f s; wrote %s\n", o.Samples, o.Edges, o.Neighbors, o.Weight, o.Seconds, o.Out)
	return nil
}
