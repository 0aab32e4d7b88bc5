// Command autocands records what `--lambda auto` saw on every draw of the
// clustering protocol: for each draw, every candidate weight's relative
// cut of the graph, its cohesion in the data, its cluster sizes (the
// largest's share, the size entropy) and its accuracy against the labels,
// one JSON line a draw. Auto's rule (model's autoChoice) uses all but the
// last; the accuracy lets bench/autorules.py score that rule and others
// on the same fits without running them again. The draws, seeds,
// preparation and fits are `experiment`'s with the command line's
// defaults, so the kept candidate's accuracy averaged over draws and k is
// experiment's for the method. Run from the module root:
//
//	go run ./internal/cmd/autocands -data ../shared/data/cluto/la1.mat -clusters 6 >la1.jsonl
//
// bench/autorules.sh runs it on every corpus of ../shared/data. With
// -whole it records one clustering of the whole corpus at its class
// count a seed instead (e.g. a generated corpus of bench/authors.sh).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/experiment"
	"github.com/manifactor/manifactor/internal/backend"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

func main() {
	if err := backend.FromEnv(); err != nil {
		fmt.Fprintln(os.Stderr, "autocands:", err)
		os.Exit(1)
	}
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "autocands:", err)
		}
		os.Exit(1)
	}
}

// record is one draw: the candidates in the order of their weight, the
// plain method first.
type record struct {
	K           int       `json:"k"`
	Run         int       `json:"run"`
	Lambda      []float64 `json:"lambda"`
	RelativeCut []float64 `json:"relative_cut"`
	Cohesion    []float64 `json:"cohesion"`
	Accuracy    []float64 `json:"accuracy"`
	Largest     []float64 `json:"largest"`
	SizeEntropy []float64 `json:"size_entropy"`
	Kept        int       `json:"kept"`
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("autocands", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "data file or Reuters-21578 directory (required)")
	method := fs.String("method", "gnmf", "graph method: gnmf, lccf or lpnmf (or their -ncw forms)")
	maxK := fs.Int("clusters", 10, "the protocol's largest k (k runs from 2)")
	runs := fs.Int("runs", 10, "draws per k")
	seed := fs.Uint64("seed", 1, "the protocol's seed")
	singleLabel := fs.Bool("single-label", false, "Reuters: articles with exactly one topic")
	minClass := fs.Int("min-class-size", 0, "Reuters: drop topics with fewer articles")
	whole := fs.Bool("whole", false, "cluster the whole corpus at its class count instead, every candidate on the whole data, once for each seed 1..runs (all threads a fit)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *data == "" {
		return errors.New("-data is required")
	}
	m, err := parseMethod(*method)
	if err != nil {
		return err
	}
	if !m.TakesGraph() {
		return fmt.Errorf("-method %s: not a graph method, it has no lambda to choose", m)
	}
	if *maxK < 2 || *runs < 1 || *minClass < 0 {
		return fmt.Errorf("-clusters %d, -runs %d, -min-class-size %d: want at least 2, 1 and 0", *maxK, *runs, *minClass)
	}
	ctx := context.Background()
	var lo dataset.LoadOptions
	lo.Reuters.SingleLabel, lo.Reuters.MinClassSize = *singleLabel, *minClass
	ds, err := dataset.Load(ctx, *data, lo)
	if err != nil {
		return err
	}
	// As experiment does: the whole corpus weighted once (each subset then
	// through experiment.SubsetPreparation).
	p, err := model.Prepare(ds, model.PrepareOptions{})
	if err != nil {
		return err
	}
	ds = p.Data
	if *whole {
		_, sizes := ds.Classes()
		for r := 0; r < *runs; r++ {
			// Every candidate on the whole data, however large.
			f := experiment.Factorization{Options: model.Options{Method: m, AutoSample: -1}}
			res, err := f.Fit(ctx, ds, len(sizes), uint64(r+1))
			if err != nil {
				return fmt.Errorf("seed %d: %w", r+1, err)
			}
			rec, err := score(ds, res, len(sizes), r)
			if err != nil {
				return err
			}
			if err := json.NewEncoder(stdout).Encode(rec); err != nil {
				return err
			}
		}
		return nil
	}
	var ks []int
	for k := 2; k <= *maxK; k++ {
		ks = append(ks, k)
	}
	prot := experiment.Protocol{Classes: ks, Runs: *runs, Seed: *seed, Prepare: experiment.SubsetPreparation(false)}
	f := experiment.Factorization{Options: model.Options{Method: m, Threads: 1}}
	type draw struct{ k, r int }
	draws := make(chan draw)
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	enc := json.NewEncoder(stdout)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
		}
	}
	// One fit per goroutine, a draw each: the records come in the order
	// the draws finish (k and run say which).
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range draws {
				rec, err := candidates(ctx, prot, f, ds, d.k, d.r)
				if err != nil {
					fail(fmt.Errorf("k = %d, run %d: %w", d.k, d.r+1, err))
					continue
				}
				mu.Lock()
				if err := enc.Encode(rec); err != nil && first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	for _, k := range ks {
		for r := 0; r < *runs; r++ {
			draws <- draw{k, r}
		}
	}
	close(draws)
	wg.Wait()
	return first
}

// candidates fits run r for k and scores every candidate.
func candidates(ctx context.Context, prot experiment.Protocol, f experiment.Factorization, ds *dataset.Dataset, k, r int) (*record, error) {
	sub, seed, err := prot.Subset(ds, k, r)
	if err != nil {
		return nil, err
	}
	res, err := f.Fit(ctx, sub, k, seed)
	if err != nil {
		return nil, err
	}
	return score(sub, res, k, r)
}

// score records res's candidates on the labelled data ds.
func score(ds *dataset.Dataset, res *model.Result, k, r int) (*record, error) {
	rec := &record{K: k, Run: r}
	for i, c := range res.Candidates {
		acc, _, err := cluster.Accuracy(ds.Labels, c.Labels)
		if err != nil {
			return nil, err
		}
		rec.Lambda = append(rec.Lambda, c.Lambda)
		rec.RelativeCut = append(rec.RelativeCut, c.RelativeCut)
		rec.Cohesion = append(rec.Cohesion, c.Cohesion)
		rec.Accuracy = append(rec.Accuracy, acc)
		rec.Largest = append(rec.Largest, c.Largest)
		rec.SizeEntropy = append(rec.SizeEntropy, c.SizeEntropy)
		if c.Kept {
			rec.Kept = i
		}
	}
	return rec, nil
}

// parseMethod returns the method named name.
func parseMethod(name string) (solver.Method, error) {
	var m solver.Method
	err := m.UnmarshalText([]byte(name))
	return m, err
}
