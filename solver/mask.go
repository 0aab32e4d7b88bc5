package solver

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/manifactor/manifactor/sparse"
	"gonum.org/v1/gonum/mat"
)

// mask is the set of X's entries a fit leaves out of its objective
// (Data.Hide), in both orientations and in the Data's internal feature
// numbering: bySample has a row per sample listing its hidden features,
// byFeature a row per feature listing its hidden samples, each in
// increasing order. Their values are unused.
type mask struct {
	bySample, byFeature *sparse.CSR
}

// Hide returns data equal to d but for the entries at hidden's stored
// positions, which a fit on it leaves out of its objective: missing
// values, or entries held out to measure how well a rank predicts. hidden
// has d's shape, one row per sample (its values are not used); the hidden
// entries' values in d do not matter, and the result's X holds zeros
// there. A hidden set that is empty returns d itself, so that the fit is
// the unhidden one bit for bit; when d holds no value at the hidden
// entries the result shares d's arrays. Every sample must keep at least
// one entry, and for Fit every feature too (Result.Transform, whose
// basis is fixed, places samples whose hidden entries cover a feature).
// Only nmf, gnmf and nmf-kl (and their -ncw forms) fit data with hidden
// entries or place new samples with them: their objective counts the
// other entries alone, with the graph term unchanged, and never
// increases under mu or cd.
func (d *Data) Hide(hidden *sparse.CSR) (*Data, error) {
	if hidden == nil || hidden.NNZ() == 0 {
		return d, nil
	}
	if d.hidden != nil {
		return nil, errors.New("solver: Hide: the data already has hidden entries")
	}
	if hidden.Rows != d.n || hidden.Cols != d.m {
		return nil, fmt.Errorf("solver: Hide: %d x %d hidden entries for data of %d samples x %d features", hidden.Rows, hidden.Cols, d.n, d.m)
	}
	if err := hidden.Validate(); err != nil {
		return nil, fmt.Errorf("solver: Hide: %w", err)
	}
	if !d.storesAny(hidden) {
		// The data hold nothing there (a caller that dropped the values
		// already): the observed entries are d's own, so is their order.
		e := *d
		var err error
		if e.hidden, err = e.maskOf(hidden); err != nil {
			return nil, err
		}
		return &e, nil
	}
	if d.xt != nil {
		// Built anew from the observed entries, so that the features'
		// order (by document frequency) is the observed data's and the
		// hidden entries' values, stored or not, change nothing.
		e, err := NewSparseDataInPlace(d.observedSamples(hidden))
		if err != nil {
			return nil, fmt.Errorf("solver: Hide: %w", err) // a bug: the entries were valid
		}
		if e.hidden, err = e.maskOf(hidden); err != nil {
			return nil, err
		}
		return e, nil
	}
	x := mat.NewDense(d.n, d.m, slices.Clone(d.dense.Data))
	for j := 0; j < d.n; j++ {
		for _, c := range hidden.Ind[hidden.Indptr[j]:hidden.Indptr[j+1]] {
			x.Set(j, c, 0)
		}
	}
	e, err := NewDenseData(x)
	if err != nil {
		return nil, fmt.Errorf("solver: Hide: %w", err) // a bug: the values were finite
	}
	if e.hidden, err = e.maskOf(hidden); err != nil {
		return nil, err
	}
	return e, nil
}

// storesAny reports whether d holds a non-zero value at one of hidden's
// positions (samples as rows, the caller's feature numbers).
func (d *Data) storesAny(hidden *sparse.CSR) bool {
	for j := 0; j < d.n; j++ {
		hid := hidden.Ind[hidden.Indptr[j]:hidden.Indptr[j+1]]
		if len(hid) == 0 {
			continue
		}
		if d.xt == nil {
			for _, c := range hid {
				if d.dense.Data[j*d.m+c] != 0 {
					return true
				}
			}
			continue
		}
		for q := d.xt.Indptr[j]; q < d.xt.Indptr[j+1]; q++ {
			if _, found := slices.BinarySearch(hid, d.feature(d.xt.Ind[q])); found && d.xt.Val[q] != 0 {
				return true
			}
		}
	}
	return false
}

// HiddenCount returns the number of entries Hide left out (0 for data
// without hidden entries).
func (d *Data) HiddenCount() int {
	if d.hidden == nil {
		return 0
	}
	return d.hidden.bySample.NNZ()
}

// maskOf builds the mask of hidden (samples as rows, the caller's feature
// numbers) in d's internal numbering, and refuses one that hides a whole
// sample: nothing would be left to fit or place it by.
func (d *Data) maskOf(hidden *sparse.CSR) (*mask, error) {
	inv := make([]int, d.m) // caller's feature -> internal
	for r := range inv {
		inv[d.feature(r)] = r
	}
	bs := &sparse.CSR{Rows: d.n, Cols: d.m, Indptr: make([]int, d.n+1), Ind: make([]int, hidden.NNZ()), Val: make([]float64, hidden.NNZ())}
	copy(bs.Indptr, hidden.Indptr)
	for j := 0; j < d.n; j++ {
		p0, p1 := hidden.Indptr[j], hidden.Indptr[j+1]
		if p1-p0 == d.m {
			return nil, fmt.Errorf("solver: Hide: every feature of sample %d (1-based) is hidden", j+1)
		}
		row := bs.Ind[p0:p1]
		for q, c := range hidden.Ind[p0:p1] {
			row[q] = inv[c]
		}
		sort.Ints(row)
	}
	return &mask{bySample: bs, byFeature: bs.T()}, nil
}

// observedSamples returns d's sparse samples (one row per sample, the
// caller's feature numbers in increasing order) without the entries that
// hidden lists.
func (d *Data) observedSamples(hidden *sparse.CSR) *sparse.CSR {
	out := &sparse.CSR{Rows: d.n, Cols: d.m, Indptr: make([]int, d.n+1), Ind: make([]int, 0, d.nnz), Val: make([]float64, 0, d.nnz)}
	type kv struct {
		j int
		x float64
	}
	var row []kv
	for i := 0; i < d.n; i++ {
		hid := hidden.Ind[hidden.Indptr[i]:hidden.Indptr[i+1]]
		row = row[:0]
		for q := d.xt.Indptr[i]; q < d.xt.Indptr[i+1]; q++ {
			c := d.feature(d.xt.Ind[q])
			if t := sort.SearchInts(hid, c); t < len(hid) && hid[t] == c {
				continue
			}
			row = append(row, kv{c, d.xt.Val[q]})
		}
		sort.Slice(row, func(a, b int) bool { return row[a].j < row[b].j })
		for _, e := range row {
			out.Ind = append(out.Ind, e.j)
			out.Val = append(out.Val, e.x)
		}
		out.Indptr[i+1] = len(out.Ind)
	}
	return out
}

// checkHidden refuses a method that cannot leave entries out of its
// objective, and for a fit (not Transform, whose basis is fixed) a
// feature hidden in every sample: nothing would be left to fit its row
// of U to.
func checkHidden(d *Data, m Method, fit bool) error {
	if d.hidden == nil {
		return nil
	}
	switch m.Base() {
	case NMF, GNMF, NMFKL:
	default:
		return fmt.Errorf("solver: %s cannot leave entries out of its objective (%d hidden): only nmf, gnmf and nmf-kl and their -ncw forms can", m, d.HiddenCount())
	}
	if bf := d.hidden.byFeature; fit {
		for r := 0; r < d.m; r++ {
			if bf.Indptr[r+1]-bf.Indptr[r] == d.n {
				return fmt.Errorf("solver: every sample of feature %d (1-based) is hidden: nothing is left to fit it to", d.feature(r)+1)
			}
		}
	}
	return nil
}
