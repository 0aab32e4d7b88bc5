package minibatch

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/testenv"
	"github.com/manifactor/manifactor/sparse"
)

// planted returns n samples of m features that are exactly V0 U0^T
// with k non-negative, sparse factors, as a CSR.
func planted(seed uint64, n, m, k int) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, 3))
	u := mat.NewDense(m, k, nil)
	v := mat.NewDense(n, k, nil)
	for i := 0; i < m; i++ {
		u.Set(i, i%k, 1+rng.Float64())
	}
	for j := 0; j < n; j++ {
		v.Set(j, rng.IntN(k), 1+rng.Float64())
		if rng.IntN(3) == 0 {
			v.Set(j, rng.IntN(k), rng.Float64())
		}
	}
	var x mat.Dense
	x.Mul(v, u.T())
	var ri, ci []int
	var val []float64
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			if a := x.At(j, i); a != 0 {
				ri, ci, val = append(ri, j), append(ci, i), append(val, a)
			}
		}
	}
	a, err := sparse.FromTriplets(n, m, ri, ci, val)
	if err != nil {
		panic(err)
	}
	return a
}

// relError is md's ||X - V U^T||^2 / ||X||^2 on x, V fitted to U.
func relError(t *testing.T, md *Model, x *sparse.CSR) float64 {
	t.Helper()
	v, err := md.Transform(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	var xx float64
	for _, a := range x.Val {
		xx += a * a
	}
	return md.Objective(x, v) / xx
}

// TestPlanted: passes over exactly low-rank data recover it, and the
// threads change nothing.
func TestPlanted(t *testing.T) {
	x := planted(1, 600, 80, 5)
	var first *mat.Dense
	for _, threads := range []int{1, 3} {
		md, err := New(80, Options{K: 5, BatchSize: 64, Threads: threads, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		if err := md.Fit(context.Background(), x, 20); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = md.U()
			if rel := relError(t, md, x); rel > 1e-4 {
				t.Errorf("relative error %v on exactly rank-5 data", rel)
			}
		} else if !mat.Equal(first, md.U()) {
			t.Errorf("%d threads: U differs from 1 thread's", threads)
		}
	}
}

// TestSteps: a batch's V satisfies the non-negative least squares
// optimality conditions, and U's sweep never raises the surrogate
// tr(U^T U A) - 2 tr(U^T B).
func TestSteps(t *testing.T) {
	x := planted(4, 300, 50, 4)
	for i := range x.Val {
		x.Val[i] *= 1 + 0.3*math.Sin(float64(i)) // not exactly low rank
	}
	md, err := New(50, Options{K: 6, BatchSize: 50, Sweeps: 300, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	surrogate := func() float64 {
		k := md.opts.K
		var s float64
		for i := 0; i < md.features; i++ {
			u, b := md.u[i*k:(i+1)*k], md.b[i*k:(i+1)*k]
			for c := range u {
				for d := range u {
					s += u[c] * md.a[c*k+d] * u[d]
				}
				s -= 2 * u[c] * b[c]
			}
		}
		return s
	}
	rows := seq(0, 50)
	md.start(x, rows)
	for lo := 0; lo < x.Rows; lo += 50 {
		rows = seq(lo, lo+50)
		v := md.solveV(x, rows)
		// KKT: g = v G - x U >= 0, and 0 where v > 0.
		k, g := md.opts.K, md.g
		var fresh mat.Dense
		fresh.Mul(md.U().T(), md.U())
		for q, x := range g {
			if d := fresh.RawMatrix().Data[q]; math.Abs(x-d) > 1e-12*(1+math.Abs(d)) {
				t.Fatalf("kept U^T U entry %d is %v, U gives %v", q, x, d)
			}
		}
		for r, j := range rows {
			for c := 0; c < k; c++ {
				grad := 0.0
				for d := 0; d < k; d++ {
					grad += v[r*k+d] * g[d*k+c]
				}
				for q := x.Indptr[j]; q < x.Indptr[j+1]; q++ {
					grad -= x.Val[q] * md.u[x.Ind[q]*k+c]
				}
				if grad < -1e-8 || v[r*k+c] > 0 && math.Abs(grad) > 1e-8 {
					t.Fatalf("batch at %d, sample %d, factor %d: v %v, gradient %v", lo, j, c, v[r*k+c], grad)
				}
			}
		}
		md.accumulate(x, rows, v, nil)
		before := surrogate()
		md.updateU()
		if after := surrogate(); after > before+1e-9*math.Abs(before) {
			t.Fatalf("batch at %d: U's sweep raised the surrogate from %v to %v", lo, before, after)
		}
	}
}

// TestPartialFitWeighsEverySample: samples given later count as much as
// those before: a model given half the samples and then the other half
// ends near one given all of them in one call.
func TestPartialFitWeighsEverySample(t *testing.T) {
	x := planted(7, 800, 60, 6)
	for i := range x.Val {
		x.Val[i] *= 1 + 0.2*math.Cos(float64(3*i))
	}
	o := Options{K: 6, BatchSize: 100, Seed: 5}
	whole, _ := New(60, o)
	if err := whole.PartialFit(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	halves, _ := New(60, o)
	a, b := x.SelectRows(seq(0, 400)), x.SelectRows(seq(400, 800))
	for _, part := range []*sparse.CSR{a, b} {
		if err := halves.PartialFit(context.Background(), part); err != nil {
			t.Fatal(err)
		}
	}
	if halves.Seen != 800 {
		t.Errorf("seen %d", halves.Seen)
	}
	v1, _ := whole.Transform(context.Background(), x)
	v2, _ := halves.Transform(context.Background(), x)
	f1, f2 := whole.Objective(x, v1), halves.Objective(x, v2)
	if f2 > 1.01*f1 {
		t.Errorf("half and half %v, whole %v", f2, f1)
	}
}

// TestBadInput: options out of range and data a model cannot take are
// refused by name.
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		o    Options
		m    int
		want string
	}{
		{Options{}, 5, "k = 0"},
		{Options{K: 2, BatchSize: -1}, 5, "batch size -1"},
		{Options{K: 2, Sweeps: -2}, 5, "-2 sweeps"},
		{Options{K: 2, Forget: 1.5}, 5, "forget 1.5"},
		{Options{K: 2}, 0, "0 features"},
	} {
		_, err := New(c.m, c.o)
		testenv.WantErr(t, err, c.want)
	}
	md, _ := New(3, Options{K: 2})
	_, err := md.Transform(context.Background(), planted(1, 4, 3, 1))
	testenv.WantErr(t, err, "before any sample")
	bad := planted(1, 4, 3, 1)
	bad.Val[2] = -1
	testenv.WantErr(t, md.PartialFit(context.Background(), bad), "value -1")
	bad.Val[2] = math.NaN()
	testenv.WantErr(t, md.PartialFit(context.Background(), bad), "value NaN")
	testenv.WantErr(t, md.PartialFit(context.Background(), planted(1, 4, 6, 1)), "6 features for a model of 3")
	testenv.WantErr(t, md.Fit(context.Background(), planted(1, 4, 3, 1), 0), "0 passes")
	testenv.WantErr(t, md.PartialFit(context.Background(), &sparse.CSR{Cols: 3, Indptr: []int{0}}), "no samples")
}

// TestSetU: a basis set from outside is what Transform fits V to, and a
// basis of the wrong shape or with a negative entry is refused.
func TestSetU(t *testing.T) {
	x := planted(1, 600, 80, 5)
	fitted, _ := New(80, Options{K: 5, BatchSize: 64, Seed: 2})
	if err := fitted.Fit(context.Background(), x, 20); err != nil {
		t.Fatal(err)
	}
	md, _ := New(80, Options{K: 5})
	if err := md.SetU(fitted.U()); err != nil {
		t.Fatal(err)
	}
	v1, _ := fitted.Transform(context.Background(), x)
	v2, _ := md.Transform(context.Background(), x)
	if !mat.Equal(v1, v2) {
		t.Error("the same basis gave another V")
	}
	testenv.WantErr(t, md.SetU(mat.NewDense(80, 4, nil)), "80 x 4 basis")
	u := fitted.U()
	u.Set(3, 1, -2)
	testenv.WantErr(t, md.SetU(u), "entry (4, 2) is -2")
}

// blocks is a Source over row blocks of a matrix in memory.
type blocks struct {
	x    *sparse.CSR
	size int
	bad  int // a block that fails, -1 for none
}

func (b blocks) Blocks() int { return (b.x.Rows + b.size - 1) / b.size }

func (b blocks) Samples() int { return b.x.Rows }

func (b blocks) Block(_ context.Context, i int) (*sparse.CSR, error) {
	if i == b.bad {
		return nil, errors.New("truncated")
	}
	return b.x.SelectRows(seq(i*b.size, min((i+1)*b.size, b.x.Rows))), nil
}

// TestFitSource: passes over blocks recover exactly low-rank data, for
// any threads, and a block that cannot be read stops the fit, named.
func TestFitSource(t *testing.T) {
	x := planted(3, 700, 70, 5)
	var first *mat.Dense
	for _, threads := range []int{1, 4} {
		md, _ := New(70, Options{K: 5, BatchSize: 50, Threads: threads, Seed: 1})
		if err := md.FitSource(context.Background(), blocks{x, 128, -1}, 20); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = md.U()
			if rel := relError(t, md, x); rel > 1e-4 {
				t.Errorf("relative error %v on exactly rank-5 data", rel)
			}
		} else if !mat.Equal(first, md.U()) {
			t.Errorf("%d threads: U differs from 1 thread's", threads)
		}
	}
	md, _ := New(70, Options{K: 5})
	testenv.WantErr(t, md.FitSource(context.Background(), blocks{x, 128, 2}, 1), "block 3: truncated")
	testenv.WantErr(t, md.FitSource(context.Background(), blocks{planted(3, 10, 9, 2), 5, -1}, 1), "block", "9 features for a model of 70")
	testenv.WantErr(t, md.FitSource(context.Background(), blocks{x, 128, -1}, 0), "0 passes")
}

// TestEmptyFirstBatch: a first batch of empty samples does not leave U
// at zero, where it would never move.
func TestEmptyFirstBatch(t *testing.T) {
	x := planted(5, 200, 30, 3)
	empty := &sparse.CSR{Rows: 50, Cols: 30, Indptr: make([]int, 51)}
	md, _ := New(30, Options{K: 3, BatchSize: 50, Seed: 1})
	if err := md.PartialFit(context.Background(), empty); err != nil {
		t.Fatal(err)
	}
	if err := md.Fit(context.Background(), x, 10); err != nil {
		t.Fatal(err)
	}
	if rel := relError(t, md, x); rel > 1e-3 {
		t.Errorf("relative error %v after an empty first batch", rel)
	}
}

// TestThreadsManyFeatures: with U's rows in several blocks of U^T U's
// sums, the threads still change nothing.
func TestThreadsManyFeatures(t *testing.T) {
	m := 2*gramBlock + 300
	x := planted(6, 120, m, 4)
	var first *mat.Dense
	for _, threads := range []int{1, 2, 5} {
		md, _ := New(m, Options{K: 4, BatchSize: 40, Threads: threads, Seed: 3})
		if err := md.Fit(context.Background(), x, 2); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = md.U()
		} else if !mat.Equal(first, md.U()) {
			t.Errorf("%d threads: U differs from 1 thread's", threads)
		}
	}
}

// TestFitContinues: passes made by several calls of Fit are the passes
// one call makes, and TransformLoss's loss is Objective's.
func TestFitContinues(t *testing.T) {
	x := planted(7, 300, 50, 4)
	one, _ := New(50, Options{K: 4, BatchSize: 32, Seed: 5})
	if err := one.Fit(context.Background(), x, 3); err != nil {
		t.Fatal(err)
	}
	three, _ := New(50, Options{K: 4, BatchSize: 32, Seed: 5})
	for range 3 {
		if err := three.Fit(context.Background(), x, 1); err != nil {
			t.Fatal(err)
		}
	}
	if !mat.Equal(one.U(), three.U()) {
		t.Error("Fit(x, 1) three times differs from Fit(x, 3)")
	}
	v, loss, err := one.TransformLoss(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	if want := one.Objective(x, v); math.Abs(loss-want) > 1e-9*want+1e-12 {
		t.Errorf("TransformLoss's loss %v, Objective %v", loss, want)
	}
	if w, _ := one.Transform(context.Background(), x); !mat.Equal(w, v) {
		t.Error("TransformLoss's V differs from Transform's")
	}
}

// solveV returns the rows of V (row-major) of the samples rows, for the
// current U.
func (md *Model) solveV(x *sparse.CSR, rows []int) []float64 {
	v := make([]float64, len(rows)*md.opts.K)
	md.solveRows(x, rows, v, nil)
	return v
}

// TestPassLoss: the online loss of a pass is each sample's error against
// U before its batch's update, which on a single batch is the loss of
// Transform with the U the pass began with.
func TestPassLoss(t *testing.T) {
	x := planted(8, 200, 40, 3)
	md, _ := New(40, Options{K: 3, BatchSize: 200, Seed: 4})
	if err := md.Fit(context.Background(), x, 2); err != nil {
		t.Fatal(err)
	}
	_, before, err := md.TransformLoss(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	if err := md.Fit(context.Background(), x, 1); err != nil {
		t.Fatal(err)
	}
	// One batch of every sample: the pass's loss is summed in the
	// pass's random order, Transform's in the samples'.
	if got := md.PassLoss(); math.Abs(got-before) > 1e-9*before {
		t.Errorf("pass loss %v, loss before the pass %v", got, before)
	}
}
