package graph

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// metricRows is metricView written out with plain loops: the reference
// the tests hold it to.
func metricRows(x [][]float64, m Metric) [][]float64 {
	if m == EuclideanMetric {
		return x
	}
	out := make([][]float64, len(x))
	for i, row := range x {
		r := slices.Clone(row)
		var n0 float64
		for _, v := range r {
			n0 += v * v
		}
		if m == CorrelationMetric {
			var mean float64
			for _, v := range r {
				mean += v
			}
			mean /= float64(len(r))
			for j := range r {
				r[j] -= mean
			}
		}
		var n float64
		for _, v := range r {
			n += v * v
		}
		if !(math.Sqrt(n) > 1e-10*math.Sqrt(n0)) {
			clear(r)
		} else {
			for j := range r {
				r[j] /= math.Sqrt(n)
			}
		}
		out[i] = r
	}
	return out
}

// profileRows returns n rows of m features, each a random profile times
// its own scale plus its own offset, with copies every seventh row a copy
// of the one before: no row constant, so no two distances tie but by a
// copy.
func profileRows(rng *rand.Rand, n, m int, copies bool) [][]float64 {
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, m)
		if copies && i%7 == 6 {
			copy(x[i], x[i-1])
			continue
		}
		scale, offset := 0.1+5*rng.Float64(), 3*rng.Float64()
		for j := range x[i] {
			x[i][j] = offset + scale*rng.Float64()
		}
	}
	return x
}

func TestMetricNames(t *testing.T) {
	for _, m := range []Metric{AutoMetric, EuclideanMetric, CosineMetric, CorrelationMetric} {
		got, err := parseMetric(m.String())
		if err != nil || got != m {
			t.Errorf("parseMetric(%q) = %v, %v", m.String(), got, err)
		}
		var u Metric
		b, _ := m.MarshalText()
		if err := u.UnmarshalText(b); err != nil || u != m {
			t.Errorf("text round trip of %v: %v, %v", m, u, err)
		}
	}
	if _, err := parseMetric("manhattan"); err == nil || !strings.Contains(err.Error(), `"manhattan"`) {
		t.Errorf("unknown metric: %v", err)
	}
	if got := Metric(9).String(); got != "Metric(9)" {
		t.Errorf("String of a bad metric: %q", got)
	}
	for _, c := range []struct {
		features int
		want     Metric
	}{{1, EuclideanMetric}, {minCorrelationFeatures - 1, EuclideanMetric}, {minCorrelationFeatures, CorrelationMetric}, {1024, CorrelationMetric}} {
		if got := AutoMetric.ForDense(c.features); got != c.want {
			t.Errorf("auto for %d features: %v, want %v", c.features, got, c.want)
		}
		if got := CosineMetric.ForDense(c.features); got != CosineMetric {
			t.Errorf("cosine for %d features resolved to %v", c.features, got)
		}
	}
}

// TestMetricView: the rows as the reference transforms them, the input
// untouched, Euclidean without a copy, constant and zero rows zero, the
// same bits for any thread count.
func TestMetricView(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	x := profileRows(rng, 300, 33, true)
	x[10] = make([]float64, 33) // zero
	for j := range x[11] {
		x[11][j] = 0.1 // constant: its mean is not exact in binary
	}
	d := toDense(x)
	raw := d.RawMatrix()
	before := slices.Clone(raw.Data)
	if v := metricView(raw, EuclideanMetric, 1); &v.Data[0] != &raw.Data[0] {
		t.Error("the Euclidean view copied the data")
	}
	for _, m := range []Metric{CosineMetric, CorrelationMetric, AutoMetric} {
		want := metricRows(x, m.ForDense(33))
		ref := metricView(raw, m, 1)
		for i := range x {
			row := ref.Data[i*ref.Stride : i*ref.Stride+ref.Cols]
			for j, v := range row {
				if math.Abs(v-want[i][j]) > 1e-14 {
					t.Fatalf("%v: row %d, feature %d: %v, want %v", m, i, j, v, want[i][j])
				}
			}
		}
		if m != CosineMetric && slices.ContainsFunc(ref.Data[11*ref.Stride:12*ref.Stride], func(v float64) bool { return v != 0 }) {
			t.Errorf("%v: the constant row is not zero", m)
		}
		if slices.ContainsFunc(ref.Data[10*ref.Stride:11*ref.Stride], func(v float64) bool { return v != 0 }) {
			t.Errorf("%v: the zero row is not zero", m)
		}
		for _, threads := range []int{2, 3, 8} {
			if got := metricView(raw, m, threads); !slices.Equal(got.Data, ref.Data) {
				t.Errorf("%v: %d threads give other bits than 1", m, threads)
			}
		}
	}
	if !slices.Equal(raw.Data, before) {
		t.Error("metricView changed its input")
	}
}

// TestDenseMetricsAgainstReference: Dense by every metric, with every
// weighting and both edge rules, against the plain-loop reference.
func TestDenseMetricsAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 7))
	for _, c := range []struct{ n, m, p int }{{30, 8, 3}, {90, 20, 5}, {140, 64, 7}} {
		x := profileRows(rng, c.n, c.m, true)
		for _, metric := range []Metric{AutoMetric, EuclideanMetric, CosineMetric, CorrelationMetric} {
			for _, w := range []Weight{Binary, Heat, Cosine} {
				for _, sym := range []Symmetry{Either, Mutual} {
					opt := Options{Neighbors: c.p, Weight: w, HeatT: 0.6, Metric: metric, Symmetry: sym}
					name := fmt.Sprintf("n=%d/m=%d/%v/%v/%v", c.n, c.m, metric, w, sym)
					t.Run(name, func(t *testing.T) {
						eachBLAS(t, func(t *testing.T) {
							d := toDense(x)
							before := mat.DenseCopyOf(d)
							g, err := Dense(context.Background(), d, opt)
							if err != nil {
								t.Fatal(err)
							}
							// By Euclidean distance these rows, far from the
							// origin, lose digits in |a|^2 + |b|^2 - 2 a.b,
							// which the heat kernel's weights show.
							tol := 1e-12
							if metric.ForDense(c.m) == EuclideanMetric {
								tol = 1e-9
							}
							sameEdges(t, edgesOf(t, g, c.n), referenceRule(x, false, opt), tol)
							if !mat.Equal(d, before) {
								t.Error("Dense changed its input")
							}
						})
					})
				}
			}
		}
	}
}

// TestMetricInvariance: by correlation the graph does not change when
// each sample is scaled by its own positive factor and shifted by its own
// offset; by cosine, when each is scaled. By Euclidean distance it does
// (the data are made so), which is what the metrics are for.
func TestMetricInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	const n, m = 120, 40
	// No copies: a copy scaled apart ties with its original only to
	// rounding, which may break the tie either way.
	x := profileRows(rng, n, m, false)
	scaled, shifted := make([][]float64, n), make([][]float64, n)
	for i := range x {
		a, b := 0.2+10*rng.Float64(), 5*rng.Float64()
		scaled[i], shifted[i] = make([]float64, m), make([]float64, m)
		for j, v := range x[i] {
			scaled[i][j] = a * v
			shifted[i][j] = a*v + b
		}
	}
	build := func(rows [][]float64, metric Metric) map[edge]float64 {
		g, err := Dense(context.Background(), toDense(rows), Options{Neighbors: 5, Metric: metric})
		if err != nil {
			t.Fatal(err)
		}
		return edgesOf(t, g, n)
	}
	sameEdges(t, build(shifted, CorrelationMetric), build(x, CorrelationMetric), 0)
	sameEdges(t, build(scaled, CosineMetric), build(x, CosineMetric), 0)
	if maps := build(shifted, EuclideanMetric); len(maps) == len(build(x, EuclideanMetric)) && func() bool {
		for e := range build(x, EuclideanMetric) {
			if _, ok := maps[e]; !ok {
				return false
			}
		}
		return true
	}() {
		t.Error("the Euclidean graph did not change with the samples' scales: the data test nothing")
	}
}

// TestDenseMetricEverywhere: DenseLinks and DenseRecall compare samples by
// the same metric as Dense: a base sample queried again gets its row of
// the graph, and the exact graph's recall is 1.
func TestDenseMetricEverywhere(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	// No copies: a copy would stand for the first of them.
	x := profileRows(rng, 80, 24, false)
	ctx := context.Background()
	for _, metric := range []Metric{EuclideanMetric, CosineMetric, CorrelationMetric} {
		for _, w := range []Weight{Binary, Heat} {
			opt := Options{Neighbors: 4, Weight: w, Metric: metric, Seed: 3}
			g, err := Dense(ctx, toDense(x), opt)
			if err != nil {
				t.Fatal(err)
			}
			links, err := DenseLinks(ctx, toDense(x), toDense(x), g.Reach, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(links.Indptr, g.W.Indptr) || !slices.Equal(links.Ind, g.W.Ind) {
				t.Errorf("%v %v: the base samples' links are not the graph", metric, w)
			}
			for q, v := range links.Val {
				if math.Abs(v-g.W.Val[q]) > 1e-12 {
					t.Fatalf("%v %v: link weight %v, the graph's %v", metric, w, v, g.W.Val[q])
				}
			}
			if r, err := DenseRecall(ctx, toDense(x), g, opt, 80); err != nil || r != 1 {
				t.Errorf("%v %v: recall of the exact graph %v, %v; want 1", metric, w, r, err)
			}
		}
	}
}

// TestSparseRefusesDenseMetrics: sparse samples are compared by cosine
// only; every sparse entry point says so for the other metrics.
func TestSparseRefusesDenseMetrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	x := randomRows(rng, 20, 10, 0.5, false)
	a := toCSR(x)
	ctx := context.Background()
	for _, metric := range []Metric{AutoMetric, CosineMetric, EuclideanMetric, CorrelationMetric} {
		opt := Options{Neighbors: 3, Metric: metric}
		ok := metric == AutoMetric || metric == CosineMetric
		g, err := Sparse(ctx, a, opt)
		check := func(what string, err error) {
			t.Helper()
			switch {
			case ok && err != nil:
				t.Errorf("%s, %v: %v", what, metric, err)
			case !ok && (err == nil || !strings.Contains(err.Error(), "the "+metric.String()+" metric is for dense samples")):
				t.Errorf("%s, %v: error %v", what, metric, err)
			}
		}
		check("Sparse", err)
		if g == nil {
			g, err = Sparse(ctx, a, Options{Neighbors: 3})
			if err != nil {
				t.Fatal(err)
			}
		}
		_, err = SparseLinks(ctx, a, a, g.Reach, opt)
		check("SparseLinks", err)
		_, err = SparseRecall(ctx, a, g, opt, 5)
		check("SparseRecall", err)
		_, err = newBlocks(0, 5, 20, opt)
		check("newBlocks", err)
	}
	if _, err := Dense(ctx, toDense(x), Options{Neighbors: 3, Metric: Metric(7)}); err == nil || !strings.Contains(err.Error(), "unknown metric") {
		t.Errorf("a bad metric: %v", err)
	}
}
