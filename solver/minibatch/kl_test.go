package minibatch

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/sparse"
)

// denseKL is D(X || V U^T) computed entry by entry over the whole dense
// product: the plain reference for KLObjective and the rows' losses.
func denseKL(x *sparse.CSR, u, v *mat.Dense) float64 {
	var y mat.Dense
	y.Mul(v, u.T())
	var s float64
	for j := 0; j < x.Rows; j++ {
		stored := map[int]float64{}
		for q := x.Indptr[j]; q < x.Indptr[j+1]; q++ {
			stored[x.Ind[q]] = x.Val[q]
		}
		for i := 0; i < x.Cols; i++ {
			yv := y.At(j, i)
			if xv := stored[i]; xv > 0 {
				s += xv*math.Log(xv/max(yv, eps)) - xv
			}
			s += yv
		}
	}
	return s
}

// TestKLPlanted: under KL, passes over exactly low-rank data recover it
// from seed 1's start (as for batch KL fits, some starts end at a local
// minimum with two columns on one planted factor), the threads change
// nothing, and Transform's loss is KLObjective's and the dense
// reference's.
func TestKLPlanted(t *testing.T) {
	x := planted(1, 600, 80, 5)
	md := klRecovers(t, x, []int{1, 3}, func(threads int) (*Model, error) {
		md, err := New(80, Options{K: 5, Loss: KL, BatchSize: 64, Threads: threads, Seed: 1})
		if err != nil {
			return nil, err
		}
		return md, md.Fit(context.Background(), x, 30)
	})
	v, loss, err := md.TransformLoss(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	obj, ref := md.Objective(x, v), denseKL(x, md.U(), v)
	if math.Abs(obj-ref) > 1e-9*(1+ref) || math.Abs(loss-ref) > 1e-9*(1+ref) {
		t.Errorf("divergence: Transform %v, KLObjective %v, dense reference %v", loss, obj, ref)
	}
}

// klRecovers fits x by fit for each thread count, checks that the
// threads change no bit of U and that the first model's divergence is
// under 1e-3 of the data's total (x being exactly low-rank), and
// returns that model.
func klRecovers(t *testing.T, x *sparse.CSR, threads []int, fit func(threads int) (*Model, error)) *Model {
	t.Helper()
	var total float64
	for _, a := range x.Val {
		total += a
	}
	var first *Model
	for _, th := range threads {
		md, err := fit(th)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = md
			continue
		}
		if !mat.Equal(first.U(), md.U()) {
			t.Errorf("%d threads: U differs from %d thread's", th, threads[0])
		}
	}
	_, loss, err := first.TransformLoss(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	if loss/total > 1e-3 {
		t.Errorf("divergence %v of the data's total on exactly rank-5 data", loss/total)
	}
	return first
}

// TestKLSteps: a batch's rows of V satisfy the KKT conditions of their
// convex problems (gradient colU - sum_q x_q u_q / y_q zero where v > 0,
// non-negative where v = 0), and U's online step is the plain dense
// formula a += U .* ((X_b ./ Y_b)^T V_b), den += V_b^T 1, U = a ./ den.
func TestKLSteps(t *testing.T) {
	x := planted(4, 300, 50, 4)
	for i := range x.Val {
		x.Val[i] *= 1 + 0.3*math.Sin(float64(i)) // not exactly low rank
	}
	md, err := New(50, Options{K: 6, Loss: KL, BatchSize: 50, Sweeps: 300, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	k := md.opts.K
	md.start(x, seq(0, 50))
	for lo := 0; lo < x.Rows; lo += 50 {
		rows := seq(lo, lo+50)
		v := make([]float64, len(rows)*k)
		ratio := md.solveRowsKL(x, rows, v, make([]float64, len(rows)), []float64{})
		u := md.U()
		colU := make([]float64, k)
		for i := 0; i < md.features; i++ {
			for c := 0; c < k; c++ {
				colU[c] += u.At(i, c)
			}
		}
		for c := range colU {
			if d := md.colU[c]; math.Abs(d-colU[c]) > 1e-12*colU[c] {
				t.Fatalf("kept column sum %d is %v, U gives %v", c, d, colU[c])
			}
		}
		for r, j := range rows {
			vr := v[r*k : (r+1)*k]
			for c := 0; c < k; c++ {
				grad := colU[c]
				for q := x.Indptr[j]; q < x.Indptr[j+1]; q++ {
					y := 0.0
					for d := 0; d < k; d++ {
						y += vr[d] * u.At(x.Ind[q], d)
					}
					grad -= x.Val[q] * u.At(x.Ind[q], c) / y
				}
				if grad < -1e-7*colU[c] || vr[c] > 0 && math.Abs(grad) > 1e-7*colU[c] {
					t.Fatalf("batch at %d, sample %d, factor %d: v %v, gradient %v", lo, j, c, vr[c], grad)
				}
			}
		}
		// The dense reference for U's step, from the same V.
		vb := mat.NewDense(len(rows), k, append([]float64(nil), v...))
		var y mat.Dense
		y.Mul(vb, u.T())
		ratios := mat.NewDense(len(rows), md.features, nil)
		for r, j := range rows {
			for q := x.Indptr[j]; q < x.Indptr[j+1]; q++ {
				ratios.Set(r, x.Ind[q], x.Val[q]/y.At(r, x.Ind[q]))
			}
		}
		var num mat.Dense
		num.Mul(ratios.T(), vb)
		wantA := mat.NewDense(md.features, k, append([]float64(nil), md.a...))
		wantDen := append([]float64(nil), md.den...)
		for r := range rows {
			for c := 0; c < k; c++ {
				wantDen[c] += v[r*k+c]
			}
		}
		md.accumulate(x, rows, v, ratio)
		md.updateU()
		for i := 0; i < md.features; i++ {
			for c := 0; c < k; c++ {
				a := wantA.At(i, c) + u.At(i, c)*num.At(i, c)
				want := a / wantDen[c]
				if got := md.u[i*k+c]; math.Abs(got-want) > 1e-12*(1+want) {
					t.Fatalf("batch at %d: U(%d, %d) = %v, the dense step gives %v", lo, i, c, got, want)
				}
			}
		}
		for q, b := range md.b {
			if b != 0 {
				t.Fatalf("batch at %d: b[%d] = %v left for the next batch", lo, q, b)
			}
		}
	}
}

// TestKLBadOptions: KL refuses sweeps of U it does not take, and an
// unknown loss is refused.
func TestKLBadOptions(t *testing.T) {
	if _, err := New(5, Options{K: 2, Loss: KL, USweeps: 2}); err == nil {
		t.Error("KL with 2 sweeps of U accepted")
	}
	if _, err := New(5, Options{K: 2, Loss: Loss(7)}); err == nil {
		t.Error("loss 7 accepted")
	}
}

// TestKLSetU: SetU under KL restarts the statistics at the given U: a
// Transform right after uses it as given.
func TestKLSetU(t *testing.T) {
	x := planted(2, 100, 30, 3)
	md, _ := New(30, Options{K: 3, Loss: KL, Seed: 1})
	u := mat.NewDense(30, 3, nil)
	for i := 0; i < 30; i++ {
		u.Set(i, i%3, 1)
	}
	if err := md.SetU(u); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(md.U(), u) {
		t.Fatal("SetU did not keep U")
	}
	v, loss, err := md.TransformLoss(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	if ref := denseKL(x, u, v); math.Abs(loss-ref) > 1e-9*(1+ref) {
		t.Errorf("loss %v, dense reference %v", loss, ref)
	}
}

// TestKLFitSource: under KL, passes over blocks recover exactly low-rank
// data, for any threads, and the discount over a pass does not depend on
// how the samples are split into blocks and batches (discountKL).
func TestKLFitSource(t *testing.T) {
	x := planted(3, 700, 70, 5)
	klRecovers(t, x, []int{1, 4}, func(threads int) (*Model, error) {
		md, err := New(70, Options{K: 5, Loss: KL, BatchSize: 50, Threads: threads, Seed: 1})
		if err != nil {
			return nil, err
		}
		return md, md.FitSource(context.Background(), blocks{x, 128, -1}, 30)
	})
	// One pass's discount, whatever the split: den starts at 1 and the
	// batches add to it, so compare the prior's share a pass leaves.
	for _, split := range []struct{ block, batch int }{{700, 700}, {128, 50}, {100, 7}} {
		md, _ := New(70, Options{K: 5, Loss: KL, BatchSize: split.batch, Seed: 1, Forget: 0.01})
		empty := &sparse.CSR{Rows: 700, Cols: 70, Indptr: make([]int, 701)}
		if err := md.FitSource(context.Background(), blocks{empty, split.block, -1}, 1); err != nil {
			t.Fatal(err)
		}
		for c, d := range md.den {
			if math.Abs(d-0.01) > 1e-12 {
				t.Errorf("blocks of %d, batches of %d: denominator %d is %v after a pass of empty samples, want 0.01", split.block, split.batch, c, d)
			}
		}
	}
}
