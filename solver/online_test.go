package solver

import (
	"context"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/corpus"
	"github.com/manifactor/manifactor/internal/testenv"
)

// TestMiniBatch: the mini-batch solver's reported objective is that of
// the factors it returns, the threads change no bit, dense and sparse
// forms of the same data agree, and on a generated corpus its passes
// come within 0.5% of coordinate descent's objective (KL: 1%).
func TestMiniBatch(t *testing.T) {
	all, x := datas(t, 91, 1500, 60, 0.1)
	for _, method := range []Method{NMF, NMFNCW, NMFKL} {
		o := Options{Method: method, K: 4, Seed: 2, Control: Control{Algorithm: MiniBatch, BatchSize: 100, MaxIter: 30}}
		var ref *Result
		for _, name := range []string{"sparse", "dense"} {
			for _, threads := range []int{1, 3} {
				o.Threads = threads
				res, err := Fit(context.Background(), all[name], o)
				if err != nil {
					t.Fatal(err)
				}
				if ref == nil {
					ref = res
					if res.Iterations < 2 || len(res.Objective) != res.Iterations+1 {
						t.Fatalf("%s: %d passes, %d objectives", method, res.Iterations, len(res.Objective))
					}
					var got float64
					switch method {
					case NMF:
						got = objectiveRef(x, rows(res.U, false), rows(res.V, false), 0, nil, nil)
					case NMFKL:
						got = klObjective(tr(x), rows(res.U, false), rows(res.V, false), nil, 0, nil)
					}
					if method != NMFNCW {
						if !relClose(got, res.Final(), 1e-9) {
							t.Fatalf("objective of the returned factors %v, reported %v", got, res.Final())
						}
					}
					continue
				}
				if name == "sparse" {
					if !slices.Equal(ref.U.RawMatrix().Data, res.U.RawMatrix().Data) || !slices.Equal(ref.V.RawMatrix().Data, res.V.RawMatrix().Data) {
						t.Fatalf("%s: %d threads differ from 1", method, threads)
					}
					continue
				}
				if !relClose(ref.Final(), res.Final(), 1e-9) || !mat.EqualApprox(ref.V, res.V, 1e-6) {
					t.Fatalf("%s: dense (%d threads) objective %v, sparse %v", method, threads, res.Final(), ref.Final())
				}
			}
		}
	}
	// A generated corpus of planted classes, the data the solver is for.
	gen, _, err := corpus.Generate(corpus.Options{Docs: 4000, Terms: 3000, Classes: 6, Words: 100, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewSparseData(gen)
	if err != nil {
		t.Fatal(err)
	}
	cd, err := Fit(context.Background(), d, Options{Method: NMF, K: 6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	mb, err := Fit(context.Background(), d, Options{Method: NMF, K: 6, Seed: 1, Control: Control{Algorithm: MiniBatch, BatchSize: 200}})
	if err != nil {
		t.Fatal(err)
	}
	if mb.Final() > 1.005*cd.Final() {
		t.Errorf("minibatch's objective %v after %d passes, cd's %v", mb.Final(), mb.Iterations, cd.Final())
	}
	cdKL, err := Fit(context.Background(), d, Options{Method: NMFKL, K: 6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	mbKL, err := Fit(context.Background(), d, Options{Method: NMFKL, K: 6, Seed: 1, Control: Control{Algorithm: MiniBatch}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("KL: minibatch %v after %d passes, cd %v after %d iterations", mbKL.Final(), mbKL.Iterations, cdKL.Final(), cdKL.Iterations)
	if mbKL.Final() > 1.01*cdKL.Final() {
		t.Errorf("KL: minibatch's objective %v after %d passes, cd's %v", mbKL.Final(), mbKL.Iterations, cdKL.Final())
	}
}

// TestMiniBatchRefused: the settings the mini-batch solver cannot take
// are refused by name.
func TestMiniBatchRefused(t *testing.T) {
	all, _ := datas(t, 93, 50, 20, 0.3)
	d := all["sparse"]
	mb := Control{Algorithm: MiniBatch}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Method: GNMF, Lambda: Fixed(0), Control: mb}, "minibatch solver is for nmf, nmf-kl, nmf-ncw, not gnmf"},
		{Options{Method: NMFKLNCW, Control: mb}, "not nmf-kl-ncw"},
		{Options{Method: NMF, Control: Control{Algorithm: MiniBatch, BatchSize: -1}}, "batch size -1"},
		{Options{Method: NMF, Control: Control{BatchSize: 10}}, "batch size is for the minibatch solver, not cd"},
		{Options{Method: NMF, Control: Control{Algorithm: MiniBatch, Forget: 1.5}}, "forget factor 1.5"},
		{Options{Method: NMF, Control: Control{Algorithm: MU, Forget: 0.3}}, "forget factor is for the minibatch solver, not mu"},
	} {
		c.o.K = 2
		_, err := Fit(context.Background(), d, c.o)
		testenv.WantErr(t, err, c.want)
	}
	h, err := d.Hide(randomHidden(94, 50, 20, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Fit(context.Background(), h, Options{Method: NMF, K: 2, Control: mb})
	testenv.WantErr(t, err, "takes no missing entries")
}
