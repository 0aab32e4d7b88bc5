package solver

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/cluster"
)

// TestDeterministicStarts: NNDSVD and a labels start are deterministic,
// non-negative with no zeros (a zero never moves under the updates), and
// start far closer to X than a random start.
func TestDeterministicStarts(t *testing.T) {
	all, truth := topics(9, 120)
	d, _ := NewSparseData(all)
	dense, _ := NewDenseData(toDenseRows(all))
	for _, m := range []Method{NMF, NMFKL, CF, GNMF} {
		for name, data := range map[string]*Data{"sparse": d, "dense": dense} {
			random, err := Fit(context.Background(), data, Options{Method: m, K: 3, Seed: 1, Lambda: Fixed(0), Control: Control{MaxIter: 1, Tol: -1}})
			if err != nil {
				t.Fatal(err)
			}
			for _, init := range []Options{{Start: NNDSVDStart}, {Start: LabelsStart, InitLabels: truth}} {
				o := init
				o.Method, o.K, o.MaxIter, o.Tol, o.Seed, o.Lambda = m, 3, 1, -1, 1, Fixed(0)
				a, err := Fit(context.Background(), data, o)
				if err != nil {
					t.Fatalf("%s %s %s: %v", m, name, init.Start, err)
				}
				o.Seed = 99 // the deterministic start must not depend on it
				b, _ := Fit(context.Background(), data, o)
				if !mat.Equal(a.V, b.V) {
					t.Fatalf("%s %s %s: start depends on the seed", m, name, init.Start)
				}
				if a.Objective[0] >= random.Objective[0]/2 {
					t.Fatalf("%s %s %s: start objective %v, random start %v", m, name, init.Start, a.Objective[0], random.Objective[0])
				}
				// From the true labels the first iteration already separates
				// the disjoint topics.
				if init.Start == LabelsStart {
					if acc, _, _ := cluster.Accuracy(truth, a.Labels); acc < 1 {
						t.Fatalf("%s %s: accuracy %v after one iteration from the true labels", m, name, acc)
					}
				}
			}
		}
	}
	if _, err := Fit(context.Background(), d, Options{K: 3, Start: LabelsStart, InitLabels: truth[:5]}); err == nil {
		t.Error("short InitLabels accepted")
	}
	if _, err := Fit(context.Background(), d, Options{K: 3, Start: Start(42)}); err == nil {
		t.Error("unknown start accepted")
	}
}
