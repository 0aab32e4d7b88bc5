package solver

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/sparse"
)

// topics returns n documents over 3 groups of 12 words each; a document
// uses only its group's words. truth[i] is its group.
func topics(seed uint64, n int) (*sparse.CSR, []int) {
	rng := rand.New(rand.NewPCG(seed, 5))
	var ri, ci []int
	var v []float64
	truth := make([]int, n)
	for d := 0; d < n; d++ {
		g := rng.IntN(3)
		truth[d] = g
		for w := g * 12; w < g*12+12; w++ {
			if rng.Float64() < 0.6 {
				ri, ci, v = append(ri, d), append(ci, w), append(v, float64(1+rng.IntN(3)))
			}
		}
		// Make sure no document is empty.
		ri, ci, v = append(ri, d), append(ci, g*12+d%12), append(v, 1)
	}
	a, err := sparse.FromTriplets(n, 36, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return a, truth
}

// knnGraph returns the symmetric 0/1 graph joining each row of a to its p
// most similar other rows (OR rule).
func knnGraph(t *testing.T, a *sparse.CSR, p int) *graph.Graph {
	t.Helper()
	l := links(a, a, p+1) // includes each row itself
	var ri, ci []int
	var v []float64
	for i := 0; i < l.Rows; i++ {
		for q := l.Indptr[i]; q < l.Indptr[i+1]; q++ {
			if j := l.Ind[q]; j != i {
				ri, ci, v = append(ri, i, j), append(ci, j, i), append(v, 1, 1)
			}
		}
	}
	w, _ := sparse.FromTriplets(l.Rows, l.Rows, ri, ci, v)
	for q := range w.Val {
		w.Val[q] = 1 // duplicates summed to 2 by the OR rule become 1
	}
	return mustGraph(t, w)
}

// links returns, for each row of q, weights 1 to its p most similar rows
// of base (cosine), computed by brute force.
func links(q, base *sparse.CSR, p int) *sparse.CSR {
	dense := func(a *sparse.CSR, i int) []float64 {
		out := make([]float64, a.Cols)
		for t := a.Indptr[i]; t < a.Indptr[i+1]; t++ {
			out[a.Ind[t]] = a.Val[t]
		}
		return out
	}
	var ri, ci []int
	var v []float64
	for i := 0; i < q.Rows; i++ {
		x := dense(q, i)
		type cand struct {
			j int
			s float64
		}
		var best []cand
		for j := 0; j < base.Rows; j++ {
			y := dense(base, j)
			var dot, nx, ny float64
			for t := range x {
				dot += x[t] * y[t]
				nx += x[t] * x[t]
				ny += y[t] * y[t]
			}
			best = append(best, cand{j, dot / math.Sqrt(nx*ny)})
		}
		for a := 0; a < p; a++ {
			top := a
			for b := a + 1; b < len(best); b++ {
				if best[b].s > best[top].s {
					top = b
				}
			}
			best[a], best[top] = best[top], best[a]
			ri, ci, v = append(ri, i), append(ci, best[a].j), append(v, 1)
		}
	}
	l, _ := sparse.FromTriplets(q.Rows, base.Rows, ri, ci, v)
	return l
}

// topicSplit holds topics(seed, 160) split into every fourth document for
// testing and the rest for training, with the training graph (5-NN) and
// the test documents' links to the training ones.
type topicSplit struct {
	train, test       *sparse.CSR
	dTrain, dTest     *Data
	trainIdx, testIdx []int
	truth             []int
	g                 *graph.Graph
	links             *sparse.CSR
}

func newSplit(t *testing.T, seed uint64) topicSplit {
	t.Helper()
	all, truth := topics(seed, 160)
	s := topicSplit{truth: truth}
	for i := 0; i < 160; i++ {
		if i%4 == 0 {
			s.testIdx = append(s.testIdx, i)
		} else {
			s.trainIdx = append(s.trainIdx, i)
		}
	}
	s.train, s.test = all.SelectRows(s.trainIdx), all.SelectRows(s.testIdx)
	s.dTrain, _ = NewSparseData(s.train)
	s.dTest, _ = NewSparseData(s.test)
	s.g = knnGraph(t, s.train, 5)
	s.links = links(s.test, s.train, 5)
	return s
}

func TestTransformNewSamples(t *testing.T) {
	sp := newSplit(t, 1)
	dTrain, dTest, g, lk, truth, trainIdx, testIdx := sp.dTrain, sp.dTest, sp.g, sp.links, sp.truth, sp.trainIdx, sp.testIdx
	testTruth := make([]int, len(testIdx))
	for i, j := range testIdx {
		testTruth[i] = truth[j]
	}
	for _, m := range []Method{NMF, GNMF, CF, LCCF, NMFNCW, GNMFNCW, CFNCW, LCCFNCW} {
		// The topics are disconnected components of the graph; a lambda far
		// above the data term's scale (raw counts here) lets two components
		// share a factor. 0.03 to 1 all work. NC weighting divides each
		// sample's error by its degree x_j . X e (hundreds here) but leaves
		// the graph term, so its lambda is smaller by as much.
		lambda := 0.1
		if m.NCW() {
			lambda = 0.0005
		}
		res, err := Fit(context.Background(), dTrain, Options{Method: m, K: 3, Seed: 2, Lambda: Fixed(lambda), Graph: g, Control: Control{Restarts: 3, MaxIter: 300}})
		if err != nil {
			t.Fatal(err)
		}
		v, err := res.Transform(context.Background(), dTrain, dTest, TransformOptions{Links: lk, MaxIter: 300})
		if err != nil {
			t.Fatal(err)
		}
		labels := make([]int, len(testIdx))
		for i := range labels {
			best := 0
			for j := 1; j < 3; j++ {
				if v.At(i, j) > v.At(i, best) {
					best = j
				}
			}
			labels[i] = best
		}
		// The new samples' factors must follow the training clusters:
		// map the training labels to topics and score the new ones.
		trainTruth := make([]int, len(trainIdx))
		for i, j := range trainIdx {
			trainTruth[i] = truth[j]
		}
		accTrain, mapping, _ := cluster.Accuracy(trainTruth, res.Labels)
		if accTrain < 0.99 {
			t.Fatalf("%s: training accuracy %v on separable topics", m, accTrain)
		}
		hit := 0
		for i, l := range labels {
			if mapping[l] == testTruth[i] {
				hit++
			}
		}
		if hit != len(labels) {
			t.Fatalf("%s: %d of %d new samples placed in their topic's cluster", m, hit, len(labels))
		}
	}
}

// TestTransformTrainingDataNMF: with U fixed, the V update is a convex
// problem; run on the training data it must fit at least as well as the
// fit's own V (which was found jointly with U).
func TestTransformTrainingDataNMF(t *testing.T) {
	sp, dn := randomSamples(7, 50, 40, 0.3)
	d, _ := NewSparseData(sp)
	res, err := Fit(context.Background(), d, Options{K: 4, Seed: 1, Control: Control{MaxIter: 2000, Tol: 1e-9}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := res.Transform(context.Background(), d, d, TransformOptions{MaxIter: 3000})
	if err != nil {
		t.Fatal(err)
	}
	x := rows(dn, false)
	u := rows(res.U, false)
	fitErr := objectiveRef(tr(x), u, rows(res.V, false), 0, nil, nil)
	newErr := objectiveRef(tr(x), u, rows(v, false), 0, nil, nil)
	if newErr > fitErr*(1+1e-6) {
		t.Fatalf("transform of training data fits worse (%v) than the fit's V (%v)", newErr, fitErr)
	}
	if newErr < fitErr*(1-1e-2) {
		t.Fatalf("fit's V is far from optimal for its U: %v vs %v", fitErr, newErr)
	}
}

func TestTransformBadInput(t *testing.T) {
	sp, _ := randomSamples(8, 20, 10, 0.4)
	d, _ := NewSparseData(sp)
	res, err := Fit(context.Background(), d, Options{K: 2, Control: Control{MaxIter: 5}})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := randomSamples(9, 5, 11, 0.5)
	dOther, _ := NewSparseData(other)
	if _, err := res.Transform(context.Background(), d, dOther, TransformOptions{}); err == nil || !strings.Contains(err.Error(), "features") {
		t.Errorf("feature mismatch: %v", err)
	}
	if _, err := (&Result{}).Transform(context.Background(), d, d, TransformOptions{}); err == nil {
		t.Error("empty result accepted")
	}
	// A model's factors at 1e300 (a hand-edited U.mtx) overflow the
	// updates: an error, not NaN factors.
	huge := *res
	huge.U = mat.DenseCopyOf(res.U)
	huge.U.Scale(1e300, huge.U)
	if v, err := huge.Transform(context.Background(), d, d, TransformOptions{}); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Errorf("factors of 1e300: %v, %v", v, err)
	}
	g := randomGraph(3, 20, 2)
	resG, _ := Fit(context.Background(), d, Options{Method: GNMF, K: 2, Lambda: Fixed(1), Graph: g, Control: Control{MaxIter: 5}})
	bad, _ := sparse.FromTriplets(20, 19, nil, nil, nil)
	if _, err := resG.Transform(context.Background(), d, d, TransformOptions{Links: bad}); err == nil || !strings.Contains(err.Error(), "links are") {
		t.Errorf("links of the wrong size: %v", err)
	}
}

// TestTransformCancelled: a transform asked for 2^40 updates a sample
// returns the context's error once it is done, for each family of method
// (before, a sample's updates ran to the end whatever the context said).
func TestTransformCancelled(t *testing.T) {
	sp, _ := randomSamples(8, 20, 10, 0.4)
	d, _ := NewSparseData(sp)
	for _, m := range []Method{NMF, CF, NMFKL} {
		res, err := Fit(context.Background(), d, Options{Method: m, K: 2, Control: Control{MaxIter: 5}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		done := make(chan error, 1)
		go func() {
			_, err := res.Transform(ctx, d, d, TransformOptions{MaxIter: 1 << 40})
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%v: %v, want the context's error", m, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%v: Transform still running a minute after its context ended", m)
		}
		cancel()
	}
}

// TestTransformKL: new samples of separable topics land in their topic's
// cluster under nmf-kl and lpnmf (with links), and the fit's own samples,
// transformed with U fixed, fit at least as well as the fit's V.
func TestTransformKL(t *testing.T) {
	sp := newSplit(t, 3)
	dTrain, dTest, g, lk, truth, trainIdx, testIdx := sp.dTrain, sp.dTest, sp.g, sp.links, sp.truth, sp.trainIdx, sp.testIdx
	for _, m := range []Method{NMFKL, LPNMF, LPNMFNCW} {
		lambda := 0.5
		if m == LPNMFNCW {
			lambda = 0.001
		}
		res, err := Fit(context.Background(), dTrain, Options{Method: m, K: 3, Seed: 2, Lambda: Fixed(lambda), Graph: g, Control: Control{Restarts: 3, MaxIter: 300}})
		if err != nil {
			t.Fatal(err)
		}
		vNew, err := res.Transform(context.Background(), dTrain, dTest, TransformOptions{Links: lk, MaxIter: 300})
		if err != nil {
			t.Fatal(err)
		}
		trainTruth := make([]int, len(trainIdx))
		for i, j := range trainIdx {
			trainTruth[i] = truth[j]
		}
		acc, mapping, _ := cluster.Accuracy(trainTruth, res.Labels)
		if acc < 0.99 {
			t.Fatalf("%s: training accuracy %v", m, acc)
		}
		for i, j := range testIdx {
			best := 0
			for c := 1; c < 3; c++ {
				if vNew.At(i, c) > vNew.At(i, best) {
					best = c
				}
			}
			if mapping[best] != truth[j] {
				t.Fatalf("%s: new sample %d placed in cluster of topic %d, is topic %d", m, i, mapping[best], truth[j])
			}
		}
	}
}

func toDenseRows(a *sparse.CSR) *mat.Dense {
	d := mat.NewDense(a.Rows, a.Cols, nil)
	for i := 0; i < a.Rows; i++ {
		for q := a.Indptr[i]; q < a.Indptr[i+1]; q++ {
			d.Set(i, a.Ind[q], a.Val[q])
		}
	}
	return d
}
