package model

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/parallel"
)

// Weighting is how Prepare weighs the features. The zero value is
// AutoWeighting.
type Weighting int

const (
	// AutoWeighting applies TFIDF to the term counts of a text corpus
	// (Dataset.Text set: Vectorize and the text loaders), as paper 004
	// does; LogTFIDF to another sparse matrix of whole numbers (term
	// counts, e.g. TDT2.mat and the CLUTO corpora), as the papers'
	// authors' code does; and nothing to anything else or to a data set
	// weighed already (Dataset.Weighted).
	AutoWeighting Weighting = iota
	// NoWeighting keeps the values as they are.
	NoWeighting
	// TFIDF is x = tf log(n / df) (paper 004).
	TFIDF
	// LogTFIDF is x = (1 + ln tf) log(n / df), the authors' reference
	// code's weighting.
	LogTFIDF
)

var weightingNames = [...]string{AutoWeighting: "auto", NoWeighting: "none", TFIDF: "tfidf", LogTFIDF: "log-tfidf"}

// String returns the name UnmarshalText accepts.
func (w Weighting) String() string {
	if w < 0 || int(w) >= len(weightingNames) {
		return fmt.Sprintf("Weighting(%d)", int(w))
	}
	return weightingNames[w]
}

// parseWeighting parses "auto", "none", "tfidf" or "log-tfidf".
func parseWeighting(s string) (Weighting, error) {
	if i := slices.Index(weightingNames[:], s); i >= 0 {
		return Weighting(i), nil
	}
	return 0, fmt.Errorf("model: unknown weighting %q (want auto, none, tfidf or log-tfidf)", s)
}

// Normalization is how Prepare scales the samples. The zero value is
// AutoNormalization.
type Normalization int

const (
	// AutoNormalization scales to unit length exactly when the weighting
	// applied tf-idf: the papers' document vectors.
	AutoNormalization Normalization = iota
	// NoNormalization keeps every sample's length.
	NoNormalization
	// L2 scales every sample to unit Euclidean length.
	L2
)

var normalizationNames = [...]string{AutoNormalization: "auto", NoNormalization: "none", L2: "l2"}

// String returns the name UnmarshalText accepts.
func (n Normalization) String() string {
	if n < 0 || int(n) >= len(normalizationNames) {
		return fmt.Sprintf("Normalization(%d)", int(n))
	}
	return normalizationNames[n]
}

// parseNormalization parses "auto", "none" or "l2".
func parseNormalization(s string) (Normalization, error) {
	if i := slices.Index(normalizationNames[:], s); i >= 0 {
		return Normalization(i), nil
	}
	return 0, fmt.Errorf("model: unknown normalization %q (want auto, none or l2)", s)
}

// PrepareOptions says how Prepare turns a loaded data set into the data
// the factorization sees. The zero value is the papers' preparation and
// the command line's: a text corpus's term counts weighted by tf log(n /
// df), a matrix of counts by (1 + ln tf) log(n / df), over the whole
// corpus and scaled to unit length, other data as it is, and the
// features no sample uses dropped.
type PrepareOptions struct {
	Weighting Weighting
	Normalize Normalization
	// KeepZeroFeatures keeps the features that are zero in every sample
	// (after the class selection).
	KeepZeroFeatures bool
	// MinDF drops the features of sparse data in fewer than MinDF samples
	// before anything is learned from them (the idf, the samples'
	// lengths), as the text pipeline's TextOptions.MinDF does for text.
	// Above 1 it is an error for dense data and for data weighted
	// already (Dataset.Weighted), and for a floor that drops every
	// feature. 0 and 1 keep every feature: a floor of 2 to 5 moved the protocol's
	// accuracy on the text corpora of ../shared/data by -1.8 to +1.0
	// points (docs/REPRODUCTION.md, "A floor on document frequency"), so
	// it is not a default.
	MinDF int
	// Classes, when set, keeps only the samples of these labels, after
	// the weighting: the idf stays the whole corpus's, as in the papers'
	// protocol, so a class subset prepared here is the protocol's subset
	// for those classes. Every label must occur.
	Classes []int
}

// Prepared reports what Prepare did.
type Prepared struct {
	Data *dataset.Dataset // the prepared data set
	// Weighting and Normalize are what was applied (never Auto).
	Weighting Weighting
	Normalize Normalization
	// ZeroFeatures counts the all-zero features dropped; RareFeatures
	// the features dropped under PrepareOptions.MinDF; ZeroSamples the
	// samples left all zero.
	ZeroFeatures, RareFeatures, ZeroSamples int
	// Preparation is what Prepare learned, to prepare new samples the
	// same way (Preparation.Apply).
	Preparation *Preparation
}

// Prepare weighs, normalizes and selects ds as opt says and returns the
// prepared data set, which may share storage with ds: ds must not be used
// afterwards. Errors name the source and what is wrong: negative values,
// a non-count under log tf-idf, a class that does not occur.
func Prepare(ds *dataset.Dataset, opt PrepareOptions) (*Prepared, error) {
	return PrepareShard(ds, opt, nil)
}

// Pool combines statistics over the shards of a data set whose samples
// are spread over processes, each sample in exactly one shard
// (dist.ShardPool does it over MPI ranks). Its methods are collective:
// the process of every shard calls them, in the same order.
type Pool interface {
	// Sum replaces x by its element-wise sum over the shards.
	Sum(x []float64) error
	// Max replaces x by its element-wise maximum over the shards.
	Max(x []float64) error
}

// onePool is the Pool of a data set held whole by one process.
type onePool struct{}

func (onePool) Sum([]float64) error { return nil }
func (onePool) Max([]float64) error { return nil }

// PrepareShard is Prepare for one shard of a data set spread over
// processes (pool nil: ds is the whole data set, as Prepare). What
// depends on the whole corpus (whether the values are term counts, the
// document frequencies of the idf and of the features dropped, the range
// of the values, the samples left all zero) is pooled over the shards, so
// each shard comes out as the same samples of Prepare on the whole data
// set, and Preparation is the whole corpus's on every shard. A class
// selection cannot be pooled and is an error. Every shard returns an
// error when any shard fails a check, so that none waits for another in
// a collective.
func PrepareShard(ds *dataset.Dataset, opt PrepareOptions, pool Pool) (*Prepared, error) {
	if ds == nil {
		return nil, fmt.Errorf("model: nil data set")
	}
	sharded := pool != nil
	if !sharded {
		pool = onePool{}
	}
	if sharded && opt.Classes != nil {
		return nil, fmt.Errorf("%s: a class selection is not available on a data set spread over processes", ds.Source)
	}
	// The check of a sparse matrix's entries also answers the questions
	// below on the same pass; the dataset's own checks run only to name
	// a failure.
	st, err := ds.Scan()
	kinds := valueKinds{negative: st.FirstNegative >= 0, fraction: st.Fraction, nonCount: st.NonCount}
	if err == nil && (ds.Sparse == nil || kinds.negative) {
		err = ds.CheckNonNegative()
	}
	if err := agree(pool, err); err != nil {
		return nil, err
	}
	counts := false
	if opt.Weighting == AutoWeighting && !ds.Weighted && ds.Sparse != nil {
		// Term counts: whole numbers in every shard, and some values.
		c := []float64{0, float64(len(ds.Sparse.Val))}
		if kinds.fraction {
			c[0] = 1
		}
		if err := pool.Sum(c); err != nil {
			return nil, err
		}
		counts = c[0] == 0 && c[1] > 0
	}
	w, norm, err := resolveChoices(opt.Weighting, opt.Normalize, counts, ds.Text != nil)
	if err != nil {
		return nil, err
	}
	if opt.MinDF < 0 {
		return nil, fmt.Errorf("model: MinDF %d is negative", opt.MinDF)
	}
	p := &Prepared{Weighting: w, Normalize: norm}
	_, m0 := ds.Dims()
	fitted := &Preparation{Weighting: w, Normalize: norm, SourceFeatures: m0, Named: ds.Vocabulary != nil, weighed: ds.Weighted}
	if ds.Vocabulary == nil {
		// Name features by their column in the source, so they keep
		// their identity through the drops of features below.
		ds.Vocabulary = make([]string, m0)
		for j := range ds.Vocabulary {
			ds.Vocabulary[j] = "f" + strconv.Itoa(j+1)
		}
	}
	// floorKept is the source column of each feature the floor kept, nil
	// when there was none.
	var floorKept []int
	// known is the document frequency of the features after the floor,
	// and n the samples', where the floor counted them already.
	var known []int
	var n int
	switch {
	case opt.MinDF > 1 && ds.Sparse == nil:
		return nil, fmt.Errorf("%s: a floor on document frequency (MinDF %d) is for sparse term counts; the data is dense", ds.Source, opt.MinDF)
	case opt.MinDF > 1 && ds.Weighted:
		return nil, fmt.Errorf("%s: a floor on document frequency (MinDF %d) applies before the weighting, and the data is weighted already (the text pipeline's own MinDF applies there)", ds.Source, opt.MinDF)
	}
	if opt.MinDF > 1 {
		df, rows, err := documentFrequency(ds, pool)
		if err != nil {
			return nil, err
		}
		// The features no sample uses are left to the drop below
		// (KeepZeroFeatures).
		keep := make([]int, len(df))
		for j, c := range df {
			switch {
			case c == 0:
				keep[j] = 1
			case c >= opt.MinDF:
				keep[j] = c
			}
		}
		floorKept = ds.KeepUsedFeatures(keep)
		p.RareFeatures = m0 - len(floorKept)
		known, n = make([]int, len(floorKept)), rows
		for q, j := range floorKept {
			known[q] = df[j]
		}
		if ds.Sparse.NNZ() == 0 {
			return nil, fmt.Errorf("%s: MinDF %d drops every feature: none is in that many samples", ds.Source, opt.MinDF)
		}
	}
	// The weighting is TFIDF's and LogTFIDF's, with the idf kept.
	// (Negative values were refused above, whatever the weighting.)
	if w == LogTFIDF {
		var err error
		if ds.Sparse == nil || kinds.nonCount {
			err = ds.CheckLogCounts()
		}
		if err := agree(pool, err); err != nil {
			return nil, err
		}
	}
	// dfAfter is the document frequency after the weighting where it
	// follows from the one before (see below), nil otherwise.
	var dfAfter []int
	if w == TFIDF || w == LogTFIDF {
		df := known
		if df == nil {
			var err error
			if df, n, err = documentFrequency(ds, pool); err != nil {
				return nil, err
			}
		}
		fitted.IDF = dataset.IDFOf(df, n)
		ds.WeighTerms(fitted.IDF, w == LogTFIDF)
		if w == LogTFIDF {
			// Every non-zero value is at least 1 here (log tf-idf
			// refuses smaller ones), so its weight 1 + ln x is at least
			// 1, and the idf log(n / df) is 0 only for a feature in
			// every sample and otherwise at least about 1/n: a weighted
			// value (and its normalized one) is zero exactly where the
			// feature is in every sample, and the count after the
			// weighting needs no pass of its own.
			dfAfter = slices.Clone(df)
			for j, c := range dfAfter {
				if c == n {
					dfAfter[j] = 0
				}
			}
		}
	}
	if w != NoWeighting || norm != NoNormalization {
		ds.Weighted = true
	}
	if norm == L2 {
		ds.NormalizeL2()
	}
	if err := checkScale(ds, pool); err != nil {
		return nil, err
	}
	if opt.Classes != nil {
		sub, err := selectClasses(ds, opt.Classes)
		if err != nil {
			return nil, err
		}
		ds = sub
	}
	_, m1 := ds.Dims()
	fitted.Columns = make([]int, m1)
	for j := range fitted.Columns {
		fitted.Columns[j] = j
	}
	if !opt.KeepZeroFeatures {
		// After the weighting: a feature in every sample weighs 0. A
		// class selection changes the counts.
		df := dfAfter
		if df == nil || opt.Classes != nil {
			var err error
			if df, _, err = documentFrequency(ds, pool); err != nil {
				return nil, err
			}
		}
		kept := ds.KeepUsedFeatures(df)
		p.ZeroFeatures = m1 - len(kept)
		fitted.Columns = kept
		if fitted.IDF != nil {
			idf := make([]float64, len(kept))
			for q, j := range kept {
				idf[q] = fitted.IDF[j]
			}
			fitted.IDF = idf
		}
	}
	if floorKept != nil {
		// The columns so far are the floored matrix's; the source's:
		for q, j := range fitted.Columns {
			fitted.Columns[q] = floorKept[j]
		}
	}
	fitted.Features = slices.Clone(ds.Vocabulary)
	zero := []float64{float64(countZeroSamples(ds))}
	if err := pool.Sum(zero); err != nil {
		return nil, err
	}
	p.ZeroSamples = int(zero[0])
	p.Data = ds
	p.Preparation = fitted
	return p, nil
}

// resolveChoices resolves the Auto weighting and normalization: term
// counts (sparse whole numbers, some of them, not weighted before) are
// weighted by tf-idf where the text pipeline made them and by log tf-idf
// otherwise, other data not at all, and tf-idf weighted samples get unit
// length. Unknown values are refused.
func resolveChoices(w Weighting, norm Normalization, counts, text bool) (Weighting, Normalization, error) {
	if w == AutoWeighting {
		w = NoWeighting
		if counts {
			w = LogTFIDF
			if text {
				w = TFIDF
			}
		}
	}
	if norm == AutoNormalization {
		norm = NoNormalization
		if w == TFIDF || w == LogTFIDF {
			norm = L2
		}
	}
	if w < 0 || int(w) >= len(weightingNames) {
		return 0, 0, fmt.Errorf("model: unknown weighting %d", int(w))
	}
	if norm < 0 || int(norm) >= len(normalizationNames) {
		return 0, 0, fmt.Errorf("model: unknown normalization %d", int(norm))
	}
	return w, norm, nil
}

// agree returns err, or when this shard passed a check that another
// failed, an error saying so: every shard learns that some shard failed,
// and the one that failed names the place.
func agree(pool Pool, err error) error {
	bad := []float64{0}
	if err != nil {
		bad[0] = 1
	}
	if perr := pool.Sum(bad); perr != nil {
		return perr
	}
	if err == nil && bad[0] > 0 {
		return errors.New("the data of another process failed its check (its error says where)")
	}
	return err
}

// documentFrequency returns each feature's document frequency and the
// number of samples, over all shards. Counts add exactly as float64 up to
// 2^53.
func documentFrequency(ds *dataset.Dataset, pool Pool) (df []int, n int, err error) {
	local := ds.DocumentFrequency()
	rows, _ := ds.Dims()
	if _, ok := pool.(onePool); ok {
		return local, rows, nil
	}
	c := make([]float64, len(local)+1)
	for j, x := range local {
		c[j] = float64(x)
	}
	c[len(local)] = float64(rows)
	if err := pool.Sum(c); err != nil {
		return nil, 0, err
	}
	for j := range local {
		local[j] = int(c[j])
	}
	return local, int(c[len(local)]), nil
}

// valueKinds says which kinds of values a sparse matrix holds
// (sparse.Stats; all false for dense data, which the dataset's checks
// examine).
type valueKinds struct {
	negative bool // some value below 0
	fraction bool // some value not a whole number
	nonCount bool // some non-zero value below 1 (log tf-idf needs counts)
}

// valueChunk is how many values a goroutine of the passes over a sparse
// matrix's values (checkScale) reads at a time: fixed chunks, so that
// what the passes find does not depend on the threads.
const valueChunk = 1 << 16

// selectClasses keeps the samples whose label is in keep; every label in
// keep must occur.
func selectClasses(ds *dataset.Dataset, keep []int) (*dataset.Dataset, error) {
	if ds.Labels == nil {
		return nil, fmt.Errorf("%s: a class selection needs labels, and the data has none", ds.Source)
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("%s: an empty class selection", ds.Source)
	}
	labels, _ := ds.Classes()
	for _, c := range keep {
		if _, found := slices.BinarySearch(labels, c); !found {
			return nil, fmt.Errorf("%s: label %d does not occur (the data has %d classes, labels %d..%d)", ds.Source, c, len(labels), labels[0], labels[len(labels)-1])
		}
	}
	want := make(map[int]bool, len(keep))
	for _, c := range keep {
		want[c] = true
	}
	var idx []int
	for i, l := range ds.Labels {
		if want[l] {
			idx = append(idx, i)
		}
	}
	sub := ds.SelectSamples(idx)
	sub.Weighted = ds.Weighted
	return sub, nil
}

// countZeroSamples counts the samples with no non-zero feature.
func countZeroSamples(ds *dataset.Dataset) int {
	n, m := ds.Dims()
	zero := 0
	if a := ds.Sparse; a != nil {
		const rows = 4096
		counts := make([]int, (n+rows-1)/rows)
		parallel.For(n, 0, rows, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				// A row is left as soon as it shows a non-zero, nearly
				// always its first entry: the pass reads one value a
				// row rather than every value.
				all := true
				for _, v := range a.Val[a.Indptr[i]:a.Indptr[i+1]] {
					if v != 0 {
						all = false
						break
					}
				}
				if all {
					counts[lo/rows]++
				}
			}
		})
		for _, c := range counts {
			zero += c
		}
		return zero
	}
	raw := ds.Dense.RawMatrix()
	for i := 0; i < n; i++ {
		all := true
		for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+m] {
			all = all && v == 0
		}
		if all {
			zero++
		}
	}
	return zero
}

// MarshalText returns the weighting's name.
func (w Weighting) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// UnmarshalText parses a weighting's name.
func (w *Weighting) UnmarshalText(b []byte) error {
	v, err := parseWeighting(string(b))
	if err == nil {
		*w = v
	}
	return err
}

// MarshalText returns the normalization's name.
func (n Normalization) MarshalText() ([]byte, error) { return []byte(n.String()), nil }

// UnmarshalText parses a normalization's name.
func (n *Normalization) UnmarshalText(b []byte) error {
	v, err := parseNormalization(string(b))
	if err == nil {
		*n = v
	}
	return err
}

// Scale bounds: the factorizations sum products and squares of the values,
// and the squared error sums squares of those sums over every entry: at
// 1e149 that sum passed float64's range and the objective came out NaN.
// Squares of values up to 1e100, summed over any data that fits in
// memory, stay below 1e220. Below about 1e-154 values underflow to zero
// or to subnormals, where the KL objective's terms cancel to nonsense (a
// negative divergence).
const (
	maxValue = 1e100
	minValue = 1e-150
)

// checkScale refuses data whose largest magnitude is outside [minValue,
// maxValue] (all-zero data aside, which other checks report), naming the
// value and its place.
func checkScale(ds *dataset.Dataset, pool Pool) error {
	var big float64
	bi, bj := -1, -1
	n, m := ds.Dims()
	if a := ds.Sparse; a != nil {
		// The largest magnitude of fixed chunks in parallel; the
		// earliest chunk holding it names the first place it occurs.
		at := make([]int, (len(a.Val)+valueChunk-1)/valueChunk)
		parallel.For(len(a.Val), 0, valueChunk, func(lo, hi int) {
			var top float64
			c := lo / valueChunk
			at[c] = lo
			for q, x := range a.Val[lo:hi] {
				if x = math.Abs(x); x > top {
					top, at[c] = x, lo+q
				}
			}
		})
		for _, p := range at {
			if x := math.Abs(a.Val[p]); x > big {
				big, bi, bj = x, a.RowOf(p), a.Ind[p]
			}
		}
	} else {
		for i := 0; i < n; i++ {
			for j, x := range ds.Dense.RawRowView(i)[:m] {
				if x = math.Abs(x); x > big {
					big, bi, bj = x, i, j
				}
			}
		}
	}
	// The range is the whole corpus's: the shard holding the largest
	// value names it, the others say another shard did.
	all := []float64{big}
	if err := pool.Max(all); err != nil {
		return err
	}
	if all[0] != big {
		if all[0] > maxValue || all[0] < minValue {
			return fmt.Errorf("%s: the largest value of the whole data set, %g, held by another process, is outside [%g, %g] (its error says where); scale the data (--normalize l2)", ds.Source, all[0], minValue, maxValue)
		}
		return nil
	}
	switch {
	case big == 0:
		return nil
	case big > maxValue:
		return fmt.Errorf("%s: value %g at sample %d, feature %d (1-based) is above %g: its square and the factorizations' sums overflow float64; scale the data (--normalize l2)", ds.Source, big, bi+1, bj+1, maxValue)
	case big < minValue:
		return fmt.Errorf("%s: the largest value, %g at sample %d, feature %d (1-based), is below %g: the factorizations' products underflow float64; scale the data (--normalize l2)", ds.Source, big, bi+1, bj+1, minValue)
	}
	return nil
}
