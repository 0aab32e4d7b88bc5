package cluster

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/sparse"
)

// randomSparse returns an n x d CSR with about density*n*d entries, every
// fifth row empty, values from gen.
func randomSparse(rng *rand.Rand, n, d int, density float64, gen func() float64) *sparse.CSR {
	var ri, ci []int
	var v []float64
	for i := range n {
		if i%5 == 4 {
			continue
		}
		for t := range d {
			if rng.Float64() < density {
				ri, ci, v = append(ri, i), append(ci, t), append(v, gen())
			}
		}
	}
	x, err := sparse.FromTriplets(n, d, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return x
}

// corpusRows returns an n x d CSR with nnz distinct random columns in every
// row and values in (0, 1], shaped like a tf-idf corpus, built directly so
// that large sizes are quick.
func corpusRows(rng *rand.Rand, n, d, nnz int) *sparse.CSR {
	x := &sparse.CSR{Rows: n, Cols: d, Indptr: make([]int, n+1), Ind: make([]int, 0, n*nnz), Val: make([]float64, 0, n*nnz)}
	seen := make(map[int]bool, nnz)
	for i := range n {
		clear(seen)
		for len(seen) < nnz {
			seen[rng.IntN(d)] = true
		}
		lo := len(x.Ind)
		for t := range seen {
			x.Ind = append(x.Ind, t)
		}
		slices.Sort(x.Ind[lo:])
		for range nnz {
			x.Val = append(x.Val, 1-rng.Float64())
		}
		x.Indptr[i+1] = len(x.Ind)
	}
	return x
}

func densify(x *sparse.CSR) *mat.Dense {
	m := mat.NewDense(x.Rows, x.Cols, nil)
	for i := range x.Rows {
		for q := x.Indptr[i]; q < x.Indptr[i+1]; q++ {
			m.Set(i, x.Ind[q], x.Val[q])
		}
	}
	return m
}

func mustSparsePoints(t *testing.T, x *sparse.CSR, threads int) *sparsePoints {
	t.Helper()
	p, err := newSparsePoints(x, threads)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(u, v float64) bool { return math.Float64bits(u) == math.Float64bits(v) })
}

// TestKMeansSparseMatchesDense runs KMeansSparse and KMeans on the same
// data: the labels, iterations and winning replicate must agree, the
// centers bit for bit (they are sums of the same rows in the same order)
// and the inertia to rounding.
func TestKMeansSparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 4))
	positive := func() float64 { return 1 - rng.Float64() }
	cases := []struct {
		n, d    int
		density float64
		gen     func() float64
		opt     KMeansOptions
	}{
		{200, 30, 0.2, positive, KMeansOptions{K: 5, Replicates: 3}},
		{300, 80, 0.05, rng.NormFloat64, KMeansOptions{K: 9, Replicates: 2}},
		{150, 7, 0.5, rng.NormFloat64, KMeansOptions{K: 20, Replicates: 2}},
		{600, 200, 0.03, positive, KMeansOptions{K: 12, Replicates: 1, Tol: -1}},
		{40, 3, 0.3, positive, KMeansOptions{K: 40, Replicates: 1}},
	}
	withPaths(t, func(t *testing.T) {
		for ci, c := range cases {
			x := randomSparse(rng, c.n, c.d, c.density, c.gen)
			for seed := range uint64(2) {
				opt := c.opt
				opt.Seed = seed
				name := fmt.Sprintf("case %d seed %d", ci, seed)
				got, err := KMeansSparse(context.Background(), x, opt)
				if err != nil {
					t.Fatal(err)
				}
				want, err := KMeans(context.Background(), densify(x), opt)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Labels, want.Labels) {
					t.Errorf("%s: labels differ from KMeans", name)
				}
				if !sameBits(got.Centers.RawMatrix().Data, want.Centers.RawMatrix().Data) {
					t.Errorf("%s: centers differ from KMeans", name)
				}
				if math.Abs(got.Inertia-want.Inertia) > 1e-12*want.Inertia || got.Iterations != want.Iterations ||
					got.Replicate != want.Replicate || got.Converged != want.Converged {
					t.Errorf("%s: inertia %v after %d iterations (replicate %d, converged %v), KMeans %v after %d (%d, %v)", name,
						got.Inertia, got.Iterations, got.Replicate, got.Converged, want.Inertia, want.Iterations, want.Replicate, want.Converged)
				}
				checkConsistent(t, densify(x), got, 1e-12)
			}
		}
	})
}

// TestRunKMeansIsKMeans checks that the shared replicate loop, run on the
// dense points, reproduces KMeans bit for bit: KMeans adds nothing to it
// but the checks of its input.
func TestRunKMeansIsKMeans(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	x, _ := blobs(rng, 80, 4, 6, 5)
	for _, threads := range []int{1, 3} {
		opt := KMeansOptions{K: 7, Replicates: 3, Seed: 5, Threads: threads}
		want, err := KMeans(context.Background(), x, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := runKMeans(context.Background(), "KMeans", mustPoints(t, x, threads), opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Labels, want.Labels) || !sameBits(got.Centers.RawMatrix().Data, want.Centers.RawMatrix().Data) ||
			math.Float64bits(got.Inertia) != math.Float64bits(want.Inertia) || got.Iterations != want.Iterations ||
			got.Replicate != want.Replicate || got.Converged != want.Converged {
			t.Errorf("threads %d: runKMeans %+v, KMeans %+v", threads, got, want)
		}
	}
}

// exactSqDist is the squared distance between the sparse row and c in
// exact arithmetic, rounded to float64.
func exactSqDist(val []float64, ind []int, c []float64) float64 {
	s := new(big.Float).SetPrec(4096)
	e, sq := new(big.Float).SetPrec(4096), new(big.Float).SetPrec(4096)
	q := 0
	for t, ct := range c {
		e.SetFloat64(-ct)
		if q < len(ind) && ind[q] == t {
			e.Add(e, new(big.Float).SetFloat64(val[q]))
			q++
		}
		sq.Mul(e, e)
		s.Add(s, sq)
	}
	f, _ := s.Float64()
	return f
}

// TestSparseSqDist checks the double-double distance against exact
// arithmetic, including centers that nearly or exactly match the row.
func TestSparseSqDist(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 3))
	for trial := range 300 {
		d := 1 + rng.IntN(60)
		x := randomSparse(rng, 1, d, rng.Float64(), rng.NormFloat64)
		val, ind := x.Val, x.Ind
		c := make([]float64, d)
		switch trial % 4 {
		case 0: // unrelated dense center
			for t := range c {
				c[t] = rng.NormFloat64()
			}
		case 1: // the row itself
			for q, t := range ind {
				c[t] = val[q]
			}
		case 2: // the row, a few ulps off, plus tiny entries elsewhere
			for t := range c {
				c[t] = 1e-9 * rng.NormFloat64()
			}
			for q, t := range ind {
				c[t] = val[q] * (1 + 0x1p-50*rng.NormFloat64())
			}
		case 3: // large offset: the fast form loses most digits
			for t := range c {
				c[t] = 1e6 + rng.NormFloat64()
			}
			for q := range val {
				val[q] += 1e6
			}
		}
		got := sparseSqDist(val, ind, squares(val), c, squares(c))
		want := exactSqDist(val, ind, c)
		if trial%4 == 1 && got != 0 {
			t.Fatalf("trial %d: distance of a row to itself is %v", trial, got)
		}
		// Two ulps, plus the documented (d + 2 nnz) 2^-106 (||x||^2 +
		// ||c||^2) from cancellation, doubled.
		var s float64
		for _, v := range c {
			s += v * v
		}
		for _, v := range val {
			s += v * v
		}
		if math.Abs(got-want) > 0x1p-51*want+float64(d+2*len(val))*0x1p-105*s {
			t.Fatalf("trial %d (d %d, nnz %d): %v, exact %v", trial, d, len(val), got, want)
		}
	}
}

// TestSparseSeedMatchesBruteForce checks that seed, which reaches the rows
// sharing a column with each new seed through the transpose, draws the
// same rows as k-means++ with sparseSqDist from every row to every seed,
// which needs the distances bit for bit; and that squares of a scattered
// row is squares of its stored values.
func TestSparseSeedMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	for trial := range 12 {
		n, d := 50+rng.IntN(100), 5+rng.IntN(60)
		x := randomSparse(rng, n, d, 0.02+0.3*rng.Float64(), rng.NormFloat64)
		if trial%3 == 0 {
			x = corpusRows(rng, n, d, 1+rng.IntN(4))
			for q := range x.Val {
				x.Val[q] = math.Round(4 * x.Val[q]) // ties and duplicate rows
			}
		}
		p := mustSparsePoints(t, x, 1+trial%3)
		k := 1 + rng.IntN(min(n, 25))
		got, err := p.seed(context.Background(), k, rand.New(rand.NewPCG(uint64(trial), 0)))
		if err != nil {
			t.Fatal(err)
		}
		// Brute force: the loop of points.seed without the screening.
		want := make([]float64, k*d)
		ref := rand.New(rand.NewPCG(uint64(trial), 0))
		chosen := make([]bool, n)
		d2 := make([]float64, n)
		for i := range d2 {
			d2[i] = math.Inf(1)
		}
		for j := range k {
			var r int
			if j == 0 {
				r = ref.IntN(n)
			} else {
				r = pickSeed(ref, d2, chosen, n-j)
			}
			chosen[r] = true
			cj := want[j*d : (j+1)*d]
			p.scatter(cj, r)
			if squares(cj) != p.exact[r] {
				t.Fatalf("trial %d: squares of scattered row %d %v, of its values %v", trial, r, squares(cj), p.exact[r])
			}
			for i := range n {
				val, ind := p.row(i)
				d2[i] = min(d2[i], sparseSqDist(val, ind, p.exact[i], cj, p.exact[r]))
			}
			if d2[r] != 0 {
				t.Fatalf("trial %d: row %d is %v from itself", trial, r, d2[r])
			}
		}
		if !sameBits(got, want) {
			t.Errorf("trial %d (n %d, d %d, k %d): seeds differ from the brute-force draw", trial, n, d, k)
		}
	}
}

// TestSparseAssignScreening checks the screened nearest center against a
// brute-force search by sparseSqDist where the fast form is least
// accurate: offsets and centers a few ulps apart.
func TestSparseAssignScreening(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 10))
	withPaths(t, func(t *testing.T) {
		for _, offset := range []float64{0, 1, 1e4, 1e8} {
			for _, d := range []int{1, 5, 17, 64} {
				n, k := 200, 9
				scale := 1.0
				if offset != 0 {
					scale = offset * 1e-6
				}
				x := randomSparse(rng, n, d, 0.6, func() float64 { return offset + scale*rng.NormFloat64() })
				p := mustSparsePoints(t, x, 2)
				c := make([]float64, k*d)
				for j := range k {
					p.scatter(c[j*d:(j+1)*d], rng.IntN(n))
					if j%3 == 2 {
						copy(c[j*d:(j+1)*d], c[(j-1)*d:j*d])
						u := rng.IntN(d)
						c[j*d+u] = math.Nextafter(c[j*d+u], math.Inf(1))
					}
				}
				w := p.work(k)
				labels, dist := make([]int, n), make([]float64, n)
				p.assign(c, labels, dist, w)
				for i := range n {
					val, ind := p.row(i)
					best, bestDist := 0, math.Inf(1)
					for j := range k {
						cj := c[j*d : (j+1)*d]
						if e := sparseSqDist(val, ind, p.exact[i], cj, squares(cj)); e < bestDist {
							best, bestDist = j, e
						}
					}
					if labels[i] != best || dist[i] != bestDist {
						t.Fatalf("offset %g d %d row %d: assigned %d at %v, nearest %d at %v", offset, d, i, labels[i], dist[i], best, bestDist)
					}
				}
			}
		}
	})
}

// TestFourAtATime checks squares4 and sparseSqDist4 against squares and
// sparseSqDist bit for bit: vectors with zeros, rows of unequal lengths
// (one empty), values over many magnitudes.
func TestFourAtATime(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	gen := func() float64 { return math.Ldexp(rng.NormFloat64(), rng.IntN(80)-40) }
	for trial := range 50 {
		d := 1 + rng.IntN(60)
		c := make([]float64, 4*d)
		for u := range c {
			if rng.Float64() < 0.7 {
				c[u] = gen()
			}
		}
		var got [4]doubleDouble
		got[0], got[1], got[2], got[3] = squares4(c[:d], c[d:2*d], c[2*d:3*d], c[3*d:])
		for j := range 4 {
			if want := squares(c[j*d : (j+1)*d]); got[j] != want {
				t.Fatalf("trial %d: squares4[%d] = %v, squares %v", trial, j, got[j], want)
			}
		}
		x := randomSparse(rng, 8, d, rng.Float64(), gen)
		p := mustSparsePoints(t, x, 1)
		exact := make([]doubleDouble, 4)
		for j := range 4 {
			exact[j] = squares(c[j*d : (j+1)*d])
		}
		for i := 0; i+4 <= p.n; i++ {
			m := [4]int{rng.IntN(4), rng.IntN(4), rng.IntN(4), rng.IntN(4)}
			var e [4]float64
			e[0], e[1], e[2], e[3] = p.sparseSqDist4(i, c, d, m, exact)
			for r := range 4 {
				val, ind := p.row(i + r)
				want := sparseSqDist(val, ind, p.exact[i+r], c[m[r]*d:(m[r]+1)*d], exact[m[r]])
				if math.Float64bits(e[r]) != math.Float64bits(want) {
					t.Fatalf("trial %d row %d: sparseSqDist4 %v, sparseSqDist %v", trial, i+r, e[r], want)
				}
			}
		}
	}
}

// topicCorpus returns k topics of per documents each; topic g uses only
// the columns [g*vocab, (g+1)*vocab), each with a prototype weight, and a
// document has that weight times 1 +- 10% on each of them, scaled to unit
// length as tf-idf rows usually are. Documents of one topic are then much
// closer to each other than to any other topic's (squared distance 2), so
// k-means++ puts one center in each topic.
func topicCorpus(rng *rand.Rand, per, k, vocab int) (*sparse.CSR, []int) {
	var ri, ci []int
	var v []float64
	proto := make([]float64, k*vocab)
	for t := range proto {
		proto[t] = 0.2 + rng.Float64()
	}
	truth := make([]int, per*k)
	for i := range truth {
		g := i % k
		truth[i] = g
		var cols []int
		var w []float64
		var norm float64
		for t := range vocab {
			x := proto[g*vocab+t] * (0.9 + 0.2*rng.Float64())
			cols, w = append(cols, g*vocab+t), append(w, x)
			norm += x * x
		}
		for q, t := range cols {
			ri, ci, v = append(ri, i), append(ci, t), append(v, w[q]/math.Sqrt(norm))
		}
	}
	x, err := sparse.FromTriplets(per*k, k*vocab, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return x, truth
}

func TestKMeansSparseSeparableTopics(t *testing.T) {
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 77))
		x, truth := topicCorpus(rng, 60, 8, 40)
		res, err := KMeansSparse(context.Background(), x, KMeansOptions{K: 8, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		acc, _, err := Accuracy(truth, res.Labels)
		if err != nil {
			t.Fatal(err)
		}
		if acc != 1 {
			t.Errorf("seed %d: accuracy %v, want 1", seed, acc)
		}
		if !res.Converged {
			t.Errorf("seed %d: not converged after %d iterations", seed, res.Iterations)
		}
		// Each center lives on its own vocabulary.
		for i, l := range res.Labels {
			g := truth[i]
			for t2, v := range res.Centers.RawRowView(l) {
				if v != 0 && t2/40 != g {
					t.Fatalf("seed %d: center %d has weight %v on column %d of topic %d", seed, l, v, t2, t2/40)
				}
			}
		}
		checkConsistent(t, densify(x), res, 1e-12)
	}
}

func TestKMeansSparseThreadInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := corpusRows(rng, 1500, 400, 12)
	var first *KMeansResult
	withPaths(t, func(t *testing.T) {
		for _, threads := range []int{1, 2, 3, 8} {
			res, err := KMeansSparse(context.Background(), x, KMeansOptions{K: 15, Replicates: 2, Seed: 42, Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = res
				checkConsistent(t, densify(x), res, 1e-12)
				continue
			}
			if !slices.Equal(res.Labels, first.Labels) || !sameBits(res.Centers.RawMatrix().Data, first.Centers.RawMatrix().Data) ||
				math.Float64bits(res.Inertia) != math.Float64bits(first.Inertia) || res.Iterations != first.Iterations || res.Replicate != first.Replicate {
				t.Errorf("threads %d: result differs from the first run (inertia %v after %d iterations, first %v after %d)",
					threads, res.Inertia, res.Iterations, first.Inertia, first.Iterations)
			}
		}
	})
}

// TestKMeansSparseEmptyClusterRepair starts from centers of which one is
// far from every row and two coincide, as the dense test does, and checks
// the repaired run against the dense one from the same centers.
func TestKMeansSparseEmptyClusterRepair(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	x := randomSparse(rng, 120, 6, 0.4, rng.NormFloat64)
	p := mustSparsePoints(t, x, 2)
	d := 6
	c := make([]float64, 5*d)
	p.scatter(c[0:d], 0)
	p.scatter(c[d:2*d], 1)
	for t := range d {
		c[2*d+t] = 1e4
	}
	p.scatter(c[3*d:4*d], 2)
	p.scatter(c[4*d:5*d], 2)
	dense := slices.Clone(c)
	// The first assignment leaves clusters 2 and 4 empty.
	labels, dist := make([]int, p.n), make([]float64, p.n)
	p.assign(slices.Clone(c), labels, dist, p.work(5))
	if sizes := countLabels(labels, 5); sizes[2] != 0 || sizes[4] != 0 || slices.Contains([]int{sizes[0], sizes[1], sizes[3]}, 0) {
		t.Fatalf("cluster sizes %v after the first assignment, want 2 and 4 empty", sizes)
	}
	cfg := lloydConfig{maxIter: 100, tol: -1}
	run, err := lloyd(context.Background(), p, c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkConsistent(t, densify(x), run.result(d, 0), 1e-12)
	for _, v := range run.centers {
		if v > 1e3 {
			t.Errorf("a center stayed at %v", v)
		}
	}
	ref, err := lloyd(context.Background(), mustPoints(t, densify(x), 2), dense, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(run.labels, ref.labels) || !sameBits(run.centers, ref.centers) || run.iters != ref.iters {
		t.Error("repaired run differs from the dense one")
	}
}

func countLabels(labels []int, k int) []int {
	c := make([]int, k)
	for _, l := range labels {
		c[l]++
	}
	return c
}

func TestKMeansSparseDuplicates(t *testing.T) {
	// Three distinct rows, one of them empty, repeated.
	distinct := [][]float64{{0, 0, 0}, {3, 0, 1}, {0, -2, 4}}
	m := mat.NewDense(12, 3, nil)
	for i := range 12 {
		m.SetRow(i, distinct[i%3])
	}
	x := toCSR(m)
	for k := 1; k <= 12; k++ {
		for seed := range uint64(3) {
			res, err := KMeansSparse(context.Background(), x, KMeansOptions{K: k, Seed: seed, Replicates: 2})
			if err != nil {
				t.Fatal(err)
			}
			checkConsistent(t, densify(x), res, 1e-12)
			if k >= 3 && res.Inertia != 0 {
				t.Errorf("k %d seed %d: inertia %v, want 0", k, seed, res.Inertia)
			}
		}
	}
	// K = n: every row is its own center.
	rng := rand.New(rand.NewPCG(6, 7))
	y := randomSparse(rng, 9, 5, 0.5, rng.NormFloat64)
	res, err := KMeansSparse(context.Background(), y, KMeansOptions{K: 9, Replicates: 3})
	if err != nil {
		t.Fatal(err)
	}
	checkConsistent(t, densify(y), res, 1e-12)
	// Rows 4 (empty) and perhaps others coincide; every row sits on a
	// center equal to it.
	yd := densify(y)
	for i, l := range res.Labels {
		if !slices.Equal(yd.RawRowView(i), res.Centers.RawRowView(l)) {
			t.Errorf("row %d is not on its center", i)
		}
	}
}

func toCSR(m *mat.Dense) *sparse.CSR {
	r, c := m.Dims()
	var ri, ci []int
	var v []float64
	for i := range r {
		for j := range c {
			if x := m.At(i, j); x != 0 {
				ri, ci, v = append(ri, i), append(ci, j), append(v, x)
			}
		}
	}
	x, err := sparse.FromTriplets(r, c, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return x
}

func TestKMeansSparseBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := randomSparse(rng, 10, 3, 0.7, rng.NormFloat64)
	with := func(v float64) *sparse.CSR {
		y := x.Clone()
		y.Val[3] = v
		return y
	}
	r3, c3 := 0, x.Ind[3]
	for x.Indptr[r3+1] <= 3 {
		r3++
	}
	cases := []struct {
		name string
		x    *sparse.CSR
		opt  KMeansOptions
		want string
	}{
		{"K 0", x, KMeansOptions{}, "K = 0"},
		{"K negative", x, KMeansOptions{K: -2}, "K = -2"},
		{"K above n", x, KMeansOptions{K: 11}, "K = 11"},
		{"NaN", with(math.NaN()), KMeansOptions{K: 2}, fmt.Sprintf("row %d, column %d (1-based): value NaN", r3+1, c3+1)},
		{"Inf", with(math.Inf(1)), KMeansOptions{K: 2}, fmt.Sprintf("row %d, column %d (1-based): value +Inf", r3+1, c3+1)},
		{"huge", with(1e200), KMeansOptions{K: 2}, fmt.Sprintf("row %d, column %d (1-based)", r3+1, c3+1)},
		{"nil", nil, KMeansOptions{K: 1}, "nil"},
		{"invalid", &sparse.CSR{Rows: 2, Cols: 3, Indptr: []int{0, 2, 2}, Ind: []int{2, 1}, Val: []float64{1, 1}}, KMeansOptions{K: 1}, "strictly increasing"},
		{"no rows", &sparse.CSR{Rows: 0, Cols: 3, Indptr: []int{0}}, KMeansOptions{K: 1}, "0 x 3"},
		{"no columns", &sparse.CSR{Rows: 4, Cols: 0, Indptr: []int{0, 0, 0, 0, 0}}, KMeansOptions{K: 1}, "4 x 0"},
		{"replicates", x, KMeansOptions{K: 2, Replicates: -1}, "Replicates"},
		{"iterations", x, KMeansOptions{K: 2, MaxIter: -1}, "MaxIter"},
		{"tol", x, KMeansOptions{K: 2, Tol: math.NaN()}, "Tol"},
	}
	for _, c := range cases {
		res, err := KMeansSparse(context.Background(), c.x, c.opt)
		if err == nil || res != nil {
			t.Errorf("%s: result %v, error %v", c.name, res, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "KMeansSparse") {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
}

func TestKMeansSparseContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := corpusRows(rng, 300, 50, 6)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := KMeansSparse(ctx, x, KMeansOptions{K: 5})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Errorf("cancelled before the start: %v, %v", res, err)
	}
	p := mustSparsePoints(t, x, 1)
	run := cancelAfterOneIteration(t, p, mustSeed(t, p, 5))
	checkConsistent(t, densify(x), run.result(p.d, 0), 1e-12)
}

// BenchmarkKMeansSparse times a TDT2-sized corpus: 9394 documents, 36093
// terms, 130 terms per document, K = 30, one replicate. On "random" rows
// (the terms drawn uniformly) Lloyd's iterations stop after one step, so
// the time is mostly setup, seeding and two assignments; on "topics" rows
// (half of each row's terms drawn from one of 30 ranges of 1200 terms) they
// run longer.
func BenchmarkKMeansSparse(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	random := corpusRows(rng, 9394, 36093, 130)
	topics := corpusRows(rng, 9394, 36093, 130)
	for i := range topics.Rows {
		row := topics.Ind[topics.Indptr[i]:topics.Indptr[i+1]]
		g := i % 30
		for q := range row {
			if q%2 == 0 {
				row[q] = g*1200 + row[q]%1200
			}
		}
		slices.Sort(row)
		row = slices.Compact(row) // drop the few collisions
		copy(topics.Ind[topics.Indptr[i]:], row)
		for q := topics.Indptr[i] + len(row); q < topics.Indptr[i+1]; q++ {
			topics.Ind[q] = -1
		}
	}
	topics = compactRows(topics)
	for _, data := range []struct {
		name string
		x    *sparse.CSR
	}{{"random", random}, {"topics", topics}} {
		for _, threads := range []int{1, 0} {
			b.Run(fmt.Sprintf("%s/n=9394/d=36093/nnz=130/K=30/threads=%d", data.name, threads), func(b *testing.B) {
				b.ReportAllocs()
				var iters int
				for b.Loop() {
					res, err := KMeansSparse(context.Background(), data.x, KMeansOptions{K: 30, Replicates: 1, Threads: threads})
					if err != nil {
						b.Fatal(err)
					}
					iters = res.Iterations
				}
				b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/op")
				b.ReportMetric(float64(iters), "iters")
			})
		}
	}
}

// compactRows drops the entries whose column index is -1.
func compactRows(x *sparse.CSR) *sparse.CSR {
	y := &sparse.CSR{Rows: x.Rows, Cols: x.Cols, Indptr: make([]int, x.Rows+1)}
	for i := range x.Rows {
		for q := x.Indptr[i]; q < x.Indptr[i+1]; q++ {
			if x.Ind[q] >= 0 {
				y.Ind, y.Val = append(y.Ind, x.Ind[q]), append(y.Val, x.Val[q])
			}
		}
		y.Indptr[i+1] = len(y.Ind)
	}
	return y
}

// TestColumnMeans requires the column-by-column means, which run where
// one cluster holds more than a goroutine's share of the rows, to give
// setMeans' bits, on chunks of columns of one and several goroutines, and
// k-means with such a cluster to give the same clustering on 1 and 8
// threads.
func TestColumnMeans(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	x := randomSparse(rng, 500, 3*meansGrain+5, 0.02, rng.NormFloat64)
	const k = 7
	for _, threads := range []int{1, 3} {
		p, err := newSparsePoints(x, threads)
		if err != nil {
			t.Fatal(err)
		}
		labels := make([]int, p.n)
		for i := range labels {
			labels[i] = rng.IntN(k)
			if i < k {
				labels[i] = i // none empty
			}
		}
		w := p.work(k)
		for _, l := range labels {
			w.counts[l]++
		}
		want := make([]float64, k*p.d)
		setMeans(want, p.d, labels, threads, w, p.scatter)
		got := make([]float64, k*p.d)
		p.columnMeans(got, labels, w)
		if !sameBits(got, want) {
			t.Fatalf("threads %d: columnMeans differs from setMeans", threads)
		}
	}
	// One cluster of most rows: 8 threads take the column path.
	y := randomSparse(rng, 400, 60, 0.1, func() float64 { return 1 - rng.Float64() })
	for i := 0; i < 300; i++ {
		for q := y.Indptr[i]; q < y.Indptr[i+1]; q++ {
			y.Val[q] += 5
		}
	}
	one, err := KMeansSparse(context.Background(), y, KMeansOptions{K: 4, Replicates: 2, Seed: 2, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	eight, err := KMeansSparse(context.Background(), y, KMeansOptions{K: 4, Replicates: 2, Seed: 2, Threads: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.Labels, eight.Labels) || !sameBits(one.Centers.RawMatrix().Data, eight.Centers.RawMatrix().Data) {
		t.Fatal("k-means on 8 threads (column means) differs from 1 thread")
	}
}
