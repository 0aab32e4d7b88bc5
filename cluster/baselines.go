package cluster

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/sparse"
)

// BaselineOptions configures the baseline clusterers LSIKMeans, PCAKMeans,
// SpectralAA and SpectralNCut; the zero value (with K set) is sensible.
type BaselineOptions struct {
	// K is the number of clusters, 1 <= K <= n.
	K int
	// Dims is the dimension of the subspace the final k-means runs in: the
	// number of singular vectors, principal components or eigenvectors
	// kept, 1 <= Dims <= min(n, m). 0 means K, except for LSIKMeans (see
	// DefaultLSIDims).
	Dims int
	// Seed seeds both the randomized SVD and the k-means++ starts.
	Seed uint64
	// Threads is the number of goroutines; 0 means GOMAXPROCS. The labels
	// do not depend on it.
	Threads int
	// Replicates is the number of k-means++ starts of the final k-means;
	// 0 means 10.
	Replicates int
}

// DefaultLSIDims is LSIKMeans's subspace dimension when Dims is 0 (capped
// at the data's smaller dimension, and at least K). LSI keeps tens to
// hundreds of dimensions; with only K of them the smaller topics of a
// subset have no axis of their own. On TDT2's k = 2..10 protocol (10 draws
// per k) K dimensions scored 79.4 % accuracy / 72.9 % NMI, 50 scored
// 81.4 / 79.0, 100 scored 83.2 / 79.8 at several times the cost.
const DefaultLSIDims = 50

// LSIKMeans is "LSI+K-means" (the baseline of paper 000, GNMF): k-means
// in the latent semantic subspace of the documents x (n x m, one document
// per row). The Dims leading singular triplets x ~ U S V^T come from
// sparse.TruncatedSVD, which never densifies x; each document's
// coordinates in the subspace, its row of U S = x V, are scaled to unit
// length, since LSI compares documents by the cosine of their latent
// vectors (as k-means on unit-length tf-idf rows does in the full space),
// and k-means clusters them.
//
// x must pass Validate and have at least one row and column; K and Dims
// must be in range (see BaselineOptions). It returns the k-means labels,
// in 0..K-1; when ctx is done it returns ctx.Err() with the labels of the
// best k-means replicate found so far, if any.
func LSIKMeans(ctx context.Context, x *sparse.CSR, opt BaselineOptions) (labels []int, err error) {
	if opt.Dims == 0 && x != nil {
		opt.Dims = max(opt.K, min(DefaultLSIDims, x.Rows, x.Cols))
	}
	dims, err := checkSparseBaseline("LSIKMeans", x, opt)
	if err != nil {
		return nil, err
	}
	u, s, _, err := truncatedSVD(ctx, x, dims, opt)
	if err != nil {
		return nil, wrapErr(ctx, "LSIKMeans", err)
	}
	scaleColumns(u, s)
	normalizeRows(u)
	return finalKMeans(ctx, "LSIKMeans", u, opt)
}

// PCAKMeans is "PCA+K-means" (the baseline of paper 001): k-means in
// the principal component subspace of the samples data (n x m, one sample
// per row; any mat.Matrix). It centers the columns of a copy of x, takes its thin SVD
// xc = U S V^T (gonum's mat.SVD, which needs O(n m min(n, m)) work and a
// dense copy: fine for image sets of a few thousand samples), and
// clusters the rows of U S, the projections xc V of the samples on the
// Dims leading principal axes.
//
// x must have at least one row and column and only finite entries; K and
// Dims must be in range (see BaselineOptions). It returns the k-means
// labels, in 0..K-1; when ctx is done it returns ctx.Err() with the labels
// of the best k-means replicate found so far, if any.
func PCAKMeans(ctx context.Context, data mat.Matrix, opt BaselineOptions) ([]int, error) {
	if data == nil {
		return nil, fmt.Errorf("cluster: PCAKMeans: no data")
	}
	if d, ok := data.(*mat.Dense); ok && (d == nil || d.IsEmpty()) {
		return nil, fmt.Errorf("cluster: PCAKMeans: no data")
	}
	if r, c := data.Dims(); r == 0 || c == 0 {
		return nil, fmt.Errorf("cluster: PCAKMeans: no data")
	}
	x := sparse.DenseOf(data)
	n, m := x.Dims()
	dims, err := checkBaseline("PCAKMeans", n, m, opt)
	if err != nil {
		return nil, err
	}
	xc := mat.NewDense(n, m, nil)
	mean := make([]float64, m)
	for i := range n {
		row := x.RawRowView(i)
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("cluster: PCAKMeans: row %d, column %d (1-based) = %v, want a finite value", i+1, j+1, v)
			}
		}
		floats.Add(mean, row)
	}
	floats.Scale(1/float64(n), mean)
	for i := range n {
		floats.SubTo(xc.RawRowView(i), x.RawRowView(i), mean)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var svd mat.SVD
	if !svd.Factorize(xc, mat.SVDThin) {
		return nil, fmt.Errorf("cluster: PCAKMeans: the SVD of the centered %d x %d data did not converge", n, m)
	}
	var u mat.Dense
	svd.UTo(&u)
	s := svd.Values(nil)
	proj := mat.NewDense(n, dims, nil)
	proj.Copy(u.Slice(0, n, 0, dims))
	scaleColumns(proj, s[:dims])
	return finalKMeans(ctx, "PCAKMeans", proj, opt)
}

// SpectralAA is Average Association spectral clustering of the documents x
// (n x m, one per row) with inner-product similarity W = x x^T (Xu, Liu
// and Gong, SIGIR 2003, eq. 18): k-means on the rows of the n x Dims
// matrix whose columns are the Dims leading eigenvectors of W. W is never
// formed: they are the leading left singular vectors of x, which
// sparse.TruncatedSVD computes from products with x and x^T only.
//
// x must pass Validate and have at least one row and column; K and Dims
// must be in range (see BaselineOptions). It returns the k-means labels,
// in 0..K-1; when ctx is done it returns ctx.Err() with the labels of the
// best k-means replicate found so far, if any.
func SpectralAA(ctx context.Context, x *sparse.CSR, opt BaselineOptions) ([]int, error) {
	dims, err := checkSparseBaseline("SpectralAA", x, opt)
	if err != nil {
		return nil, err
	}
	u, err := aaEmbedding(ctx, x, dims, opt)
	if err != nil {
		return nil, wrapErr(ctx, "SpectralAA", err)
	}
	return finalKMeans(ctx, "SpectralAA", u, opt)
}

// SpectralNCut is Normalized Cut spectral clustering of the non-negative
// documents x (n x m, one per row) with W = x x^T and degrees
// D = diag(W e) (paper 004, section 5; Ng, Jordan and
// Weiss, NIPS 2001): the Dims leading eigenvectors of
// D^-1/2 W D^-1/2 = (D^-1/2 x)(D^-1/2 x)^T, the leading left singular
// vectors of D^-1/2 x from sparse.TruncatedSVD, form the rows of an
// n x Dims matrix; each row is scaled to unit length and k-means clusters
// them. Neither W nor a dense copy of x is formed: the degrees are
// d = x (x^T e), two sparse passes.
//
// A document with degree 0 (an empty row) has no similarity to any other;
// its row of the embedding is left zero rather than divided by zero.
//
// x must pass Validate, have at least one row and column and no negative
// entry (so that every degree is non-negative); K and Dims must be in
// range (see BaselineOptions). It returns the k-means labels, in 0..K-1;
// when ctx is done it returns ctx.Err() with the labels of the best
// k-means replicate found so far, if any.
func SpectralNCut(ctx context.Context, x *sparse.CSR, opt BaselineOptions) ([]int, error) {
	dims, err := checkSparseBaseline("SpectralNCut", x, opt)
	if err != nil {
		return nil, err
	}
	u, err := ncutEmbedding(ctx, x, dims, opt)
	if err != nil {
		return nil, wrapErr(ctx, "SpectralNCut", err)
	}
	normalizeRows(u)
	return finalKMeans(ctx, "SpectralNCut", u, opt)
}

// normalizeRows scales every non-zero row of u to unit length.
func normalizeRows(u *mat.Dense) {
	for i := range u.RawMatrix().Rows {
		row := u.RawRowView(i)
		if norm := floats.Norm(row, 2); norm > 0 {
			floats.Scale(1/norm, row)
		}
	}
}

// aaEmbedding returns the dims leading eigenvectors of x x^T as columns.
func aaEmbedding(ctx context.Context, x *sparse.CSR, dims int, opt BaselineOptions) (*mat.Dense, error) {
	u, _, _, err := truncatedSVD(ctx, x, dims, opt)
	return u, err
}

// ncutEmbedding returns the dims leading eigenvectors of
// D^-1/2 x x^T D^-1/2, D = diag(x x^T e), as columns, before the row
// normalization of SpectralNCut.
func ncutEmbedding(ctx context.Context, x *sparse.CSR, dims int, opt BaselineOptions) (*mat.Dense, error) {
	for i := range x.Rows {
		for p := x.Indptr[i]; p < x.Indptr[i+1]; p++ {
			if v := x.Val[p]; v < 0 {
				return nil, fmt.Errorf("row %d, column %d (1-based) = %v: Normalized Cut needs non-negative data, so that the degrees x x^T e are non-negative", i+1, x.Ind[p]+1, v)
			}
		}
	}
	colSums := x.ColSums() // x^T e
	scale := make([]float64, x.Rows)
	for i := range scale {
		var d float64
		for p := x.Indptr[i]; p < x.Indptr[i+1]; p++ {
			d += x.Val[p] * colSums[x.Ind[p]]
		}
		if d > 0 {
			scale[i] = 1 / math.Sqrt(d)
		}
	}
	xs := x.Clone()
	xs.ScaleRows(scale)
	u, _, _, err := truncatedSVD(ctx, xs, dims, opt)
	return u, err
}

// PCAKMeansSparse is PCAKMeans for sparse samples: the principal axes come
// from sparse.TruncatedSVD with Center, which subtracts the column means
// inside its products, so x is never densified (a text corpus would take
// gigabytes). K-means clusters the rows of U S, as in PCAKMeans; the
// randomized SVD agrees with the dense one to rounding when the spectrum
// separates the Dims leading values.
func PCAKMeansSparse(ctx context.Context, x *sparse.CSR, opt BaselineOptions) ([]int, error) {
	dims, err := checkSparseBaseline("PCAKMeansSparse", x, opt)
	if err != nil {
		return nil, err
	}
	u, s, _, err := sparse.TruncatedSVD(ctx, x, dims, sparse.SVDOptions{Seed: opt.Seed, Threads: opt.Threads, Center: true})
	if err != nil {
		return nil, wrapErr(ctx, "PCAKMeansSparse", err)
	}
	scaleColumns(u, s)
	return finalKMeans(ctx, "PCAKMeansSparse", u, opt)
}

// truncatedSVD is sparse.TruncatedSVD with the seed and threads of opt.
func truncatedSVD(ctx context.Context, x *sparse.CSR, dims int, opt BaselineOptions) (*mat.Dense, []float64, *mat.Dense, error) {
	return sparse.TruncatedSVD(ctx, x, dims, sparse.SVDOptions{Seed: opt.Seed, Threads: opt.Threads})
}

// scaleColumns multiplies column j of a by s[j] in place.
func scaleColumns(a *mat.Dense, s []float64) {
	r, _ := a.Dims()
	for i := range r {
		floats.Mul(a.RawRowView(i), s)
	}
}

// finalKMeans clusters the rows of the embedding e with the k-means
// settings of opt.
func finalKMeans(ctx context.Context, name string, e *mat.Dense, opt BaselineOptions) ([]int, error) {
	res, err := KMeans(ctx, e, KMeansOptions{K: opt.K, Replicates: opt.Replicates, Seed: opt.Seed, Threads: opt.Threads})
	var labels []int
	if res != nil {
		labels = res.Labels
	}
	return labels, wrapErr(ctx, name, err)
}

// wrapErr names the baseline in err, except for ctx.Err(), which callers
// compare with ==.
func wrapErr(ctx context.Context, name string, err error) error {
	if err == nil || err == ctx.Err() {
		return err
	}
	return fmt.Errorf("cluster: %s: %w", name, err)
}

// checkSparseBaseline validates x and opt for a sparse baseline and
// returns the subspace dimension.
func checkSparseBaseline(name string, x *sparse.CSR, opt BaselineOptions) (int, error) {
	if x == nil {
		return 0, fmt.Errorf("cluster: %s: no data (x is nil)", name)
	}
	if err := x.Validate(); err != nil {
		return 0, fmt.Errorf("cluster: %s: %w", name, err)
	}
	return checkBaseline(name, x.Rows, x.Cols, opt)
}

// checkBaseline checks the options against an n x m data matrix and
// returns the subspace dimension.
func checkBaseline(name string, n, m int, opt BaselineOptions) (int, error) {
	if n == 0 || m == 0 {
		return 0, fmt.Errorf("cluster: %s: data is %d x %d, want at least one sample and one feature", name, n, m)
	}
	if opt.K < 1 || opt.K > n {
		return 0, fmt.Errorf("cluster: %s: K = %d, want 1 <= K <= %d (the number of samples)", name, opt.K, n)
	}
	if opt.Replicates < 0 {
		return 0, fmt.Errorf("cluster: %s: Replicates = %d, want 0 (default) or more", name, opt.Replicates)
	}
	dims := opt.Dims
	if dims == 0 {
		dims = opt.K
	}
	if dims < 1 || dims > min(n, m) {
		return 0, fmt.Errorf("cluster: %s: subspace dimension %d (Dims = %d, K = %d), want 1 <= Dims <= %d (the smaller dimension of the %d x %d data)", name, dims, opt.Dims, opt.K, min(n, m), n, m)
	}
	return dims, nil
}
