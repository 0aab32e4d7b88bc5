package experiment

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
)

// Reference is one published results table, transcribed from one of the
// papers this project implements (numbered as in shared/papers). Values are
// fractions in [0, 1]; per-k slices are in the order of K.
type Reference struct {
	// ID is the paper number, "-table" and the table number as printed,
	// e.g. "000-table2".
	ID string
	// Citation names the authors, a short title, the venue, the year and
	// the table.
	Citation string
	// Data is the data set: "TDT2", "Reuters-21578", "COIL20" or "PIE".
	Data string
	// K holds the numbers of clusters of the per-k rows, in order.
	K []int
	// Methods holds the columns as this library's method names, in the
	// paper's order. Columns without a counterpart here are named
	// "paper:" and their lowercased heading.
	Methods []string
	// Labels maps each method to the paper's heading for it.
	Labels map[string]string
	// Accuracy holds the per-k mean accuracy of each method, AccuracyStd
	// the per-k standard deviations and AccuracyAverage the paper's
	// average row. Accuracy and AccuracyAverage are nil when the table has
	// no accuracy, AccuracyStd when it prints no deviations.
	Accuracy        map[string][]float64
	AccuracyStd     map[string][]float64
	AccuracyAverage map[string]float64
	// NMI, NMIStd and NMIAverage are the same for normalized mutual
	// information.
	NMI, NMIStd map[string][]float64
	NMIAverage  map[string]float64
	// Notes says how the paper ran the comparison where it matters: the
	// document or image set, the protocol, the parameters, and why each
	// column was given its method name.
	Notes string
}

// printed is a table in the paper's own unit (100 when it prints
// percentages, 1 when it prints fractions): for each method, the per-k
// values followed by the average row. Standard deviations have no average
// row.
type printed struct {
	unit                     float64
	acc, accStd, nmi, nmiStd map[string][]float64
}

// with returns r with the values of p converted to fractions.
func (r Reference) with(p printed) Reference {
	r.Accuracy, r.AccuracyAverage = p.columns(p.acc)
	r.NMI, r.NMIAverage = p.columns(p.nmi)
	r.AccuracyStd = p.scaled(p.accStd)
	r.NMIStd = p.scaled(p.nmiStd)
	return r
}

// columns splits each printed column into its per-k values and its
// average, as fractions.
func (p printed) columns(cols map[string][]float64) (map[string][]float64, map[string]float64) {
	if cols == nil {
		return nil, nil
	}
	perK := make(map[string][]float64, len(cols))
	avg := make(map[string]float64, len(cols))
	for m, v := range cols {
		if len(v) == 0 {
			panic("experiment: empty column " + m)
		}
		last := len(v) - 1
		perK[m] = p.fractions(v[:last])
		avg[m] = v[last] / p.unit
	}
	return perK, avg
}

// scaled converts every column of cols to fractions.
func (p printed) scaled(cols map[string][]float64) map[string][]float64 {
	if cols == nil {
		return nil
	}
	out := make(map[string][]float64, len(cols))
	for m, v := range cols {
		out[m] = p.fractions(v)
	}
	return out
}

// fractions returns v divided by the unit.
func (p printed) fractions(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x / p.unit
	}
	return out
}

// kRange returns lo, lo+step, ..., hi.
func kRange(lo, hi, step int) []int {
	var k []int
	for i := lo; i <= hi; i += step {
		k = append(k, i)
	}
	return k
}

// Units of the printed tables.
const (
	unitPercent  = 100
	unitFraction = 1
)

// Notes shared by the tables of one paper.
const (
	notes000 = "Documents with more than one label are dropped and only the 30 largest categories kept; " +
		"stop words removed, tf-idf vectors. 50 random choices of k categories per k; cells are the mean and, " +
		"after the ±, the spread over those runs (the text calls it the variance, but its size is that of a " +
		"standard deviation in percent). GNMF uses a 0/1 weighted 5-nearest-neighbour graph and lambda = 10. " +
		"The paper's NMF column is the NC-weighted NMF of Xu, Liu and Gong 2003 (paper 004, its ref. [18]), hence nmf-ncw; " +
		"nothing says GNMF was weighted, hence gnmf."
	notes001 = "Images of 32x32 grey levels; 20 random choices of k classes per k; only means are printed. " +
		"GNMF uses a 5-nearest-neighbour graph and lambda = 100. The paper's NMF column is the NC-weighted NMF " +
		"of Xu, Liu and Gong 2003 (paper 004, its ref. [29]), hence nmf-ncw; nothing says GNMF was weighted, hence gnmf. " +
		"NCut is Shi and Malik's normalized cut; the paper does not say which affinity graph it used on the images."
	notes002 = "Documents with more than one label are dropped and the categories with more than 10 documents kept; " +
		"stop words removed, tf-idf vectors. 50 random choices of k categories per k; only means are printed. " +
		"LCCF uses a cosine-weighted 5-nearest-neighbour graph and lambda = 100. Every column without -ncw is the " +
		"plain form and every -ncw column the NC-weighted one (appendix B); NC is the NC-weighted AA, hence ncut. " +
		"KM-NCW has no counterpart here (paper:km-ncw). The second block of rows repeats the methods that admit " +
		"a kernel with the degree-2 polynomial kernel <x_i, x_j>^2 (solver.Polynomial, Degree 2, Coef0 0): " +
		"CF and LCCF map to cf-poly, cf-ncw-poly, lccf-poly and lccf-ncw-poly; kernel KM, KM-NCW, AA and NC " +
		"have no counterpart here (paper:km-poly, paper:km-ncw-poly, paper:aa-poly, paper:nc-poly)."
	notes003 = "The 30 largest categories, documents with more than one label dropped; stop words removed, tf-idf " +
		"vectors. 20 random choices of k categories per k; NMI only, means only. LPNMF uses a 0/1 weighted " +
		"5-nearest-neighbour graph and lambda = 100. The paper reviews NMF only in its divergence (KL) form and " +
		"mentions no weighting for any method, so NMF maps to nmf-kl and LPNMF to lpnmf; this is a reading, not " +
		"a statement of the paper. AA is spectral average association (equivalent to SVD then k-means), NC normalized cut."
	notes004 = "Xu, Liu and Gong's own protocol: stemmed, stop words removed, tf-idf weights with each document " +
		"scaled to unit length; 50 random choices of k categories per k, means only; each NMF run keeps the best " +
		"(smallest squared error) of 10 starts; clusters by the arg max of V after scaling the columns of U to unit " +
		"length. NMF is the plain form and NMF-NCW the NC-weighted one (X D^-1/2 with D = diag(X^T X e)). AA and NC " +
		"are spectral clustering; the graph weights are not spelled out (with inner-product weights AA equals " +
		"LSI then k-means). The table's mutual-information columns are the " +
		"normalized MI of its eq. (14); it prints them before accuracy."
)

// references holds every table, sorted by ID. References hands out copies.
var references = []Reference{
	Reference{
		ID:       "000-table2",
		Citation: "Cai, He, Han: Graph Regularized Non-negative Matrix Factorization for Data Representation, UIUC technical report, 2008, Table 2",
		Data:     "TDT2",
		K:        kRange(2, 10, 1),
		Methods:  []string{"kmeans", "lsi-kmeans", "nmf-ncw", "gnmf"},
		Labels:   map[string]string{"kmeans": "K-means", "lsi-kmeans": "LSI+K-means", "nmf-ncw": "NMF", "gnmf": "GNMF"},
		Notes:    "TDT2: 9394 documents in 30 categories. " + notes000,
	}.with(printed{unit: unitPercent,
		acc: map[string][]float64{
			"kmeans":     {97.6, 90.4, 86.3, 81.1, 79.2, 73.8, 72.5, 73.6, 72.3, 80.8},
			"lsi-kmeans": {98.6, 91.3, 87.9, 84.8, 81.6, 76.8, 72.9, 72.3, 70.4, 81.8},
			"nmf-ncw":    {99.7, 95.9, 93.2, 89.9, 91.4, 85.8, 82.3, 83.9, 82.6, 89.4},
			"gnmf":       {99.9, 99.7, 99.3, 98.4, 98.1, 96.6, 95.9, 96.5, 94.3, 97.6},
		},
		accStd: map[string][]float64{
			"kmeans":     {6.7, 17.3, 16.4, 16.9, 16.1, 15.3, 16.3, 14.6, 14.5},
			"lsi-kmeans": {5.1, 15.7, 17.1, 15.4, 15.3, 15.6, 14.7, 14.3, 12.9},
			"nmf-ncw":    {1.1, 10.8, 11.9, 12.7, 11.7, 13.2, 13.0, 13.1, 10.2},
			"gnmf":       {0.3, 0.4, 1.6, 4.7, 5.0, 4.7, 5.3, 4.9, 5.7},
		},
		nmi: map[string][]float64{
			"kmeans":     {90.3, 84.4, 82.2, 79.2, 79.6, 75.6, 73.6, 77.6, 76.5, 79.9},
			"lsi-kmeans": {94.0, 84.1, 82.5, 81.2, 80.1, 75.3, 72.6, 75.9, 74.7, 80.0},
			"nmf-ncw":    {97.5, 90.9, 89.1, 85.6, 88.8, 83.6, 80.7, 83.9, 82.9, 87.0},
			"gnmf":       {98.4, 97.9, 96.2, 95.4, 95.6, 93.1, 92.1, 93.3, 91.3, 94.8},
		},
		nmiStd: map[string][]float64{
			"kmeans":     {24.8, 25.7, 20.9, 17.9, 15.5, 16.3, 16.0, 12.5, 13.1},
			"lsi-kmeans": {19.7, 27.0, 23.1, 17.7, 15.8, 16.5, 16.8, 13.0, 13.7},
			"nmf-ncw":    {9.7, 18.7, 16.6, 15.8, 12.5, 14.0, 13.4, 11.4, 9.9},
			"gnmf":       {2.8, 2.4, 7.7, 7.4, 6.4, 6.5, 6.3, 6.0, 6.5},
		},
	}),
	Reference{
		ID:       "000-table3",
		Citation: "Cai, He, Han: Graph Regularized Non-negative Matrix Factorization for Data Representation, UIUC technical report, 2008, Table 3",
		Data:     "Reuters-21578",
		K:        kRange(2, 10, 1),
		Methods:  []string{"kmeans", "lsi-kmeans", "nmf-ncw", "gnmf"},
		Labels:   map[string]string{"kmeans": "K-means", "lsi-kmeans": "LSI+K-means", "nmf-ncw": "NMF", "gnmf": "GNMF"},
		Notes:    "Reuters-21578: 8067 documents in 30 categories. " + notes000,
	}.with(printed{unit: unitPercent,
		acc: map[string][]float64{
			"kmeans":     {79.0, 68.7, 62.2, 59.6, 59.7, 53.8, 50.2, 44.5, 47.0, 58.3},
			"lsi-kmeans": {89.0, 76.9, 70.0, 66.3, 66.6, 55.9, 52.9, 46.3, 49.8, 63.7},
			"nmf-ncw":    {87.0, 77.6, 74.5, 71.4, 68.7, 63.6, 54.1, 52.8, 53.3, 67.0},
			"gnmf":       {91.5, 89.1, 83.1, 73.8, 71.9, 73.1, 69.2, 64.7, 64.2, 75.6},
		},
		accStd: map[string][]float64{
			"kmeans":     {17.4, 14.7, 13.7, 16.5, 16.6, 16.5, 17.3, 16.7, 17.6},
			"lsi-kmeans": {15.9, 19.7, 20.2, 21.4, 20.0, 19.5, 22.0, 19.2, 20.1},
			"nmf-ncw":    {15.3, 15.9, 17.3, 15.0, 16.1, 14.0, 16.4, 15.2, 13.9},
			"gnmf":       {13.3, 11.6, 13.9, 12.9, 10.9, 10.9, 10.1, 10.7, 11.4},
		},
		nmi: map[string][]float64{
			"kmeans":     {39.7, 44.5, 47.3, 51.1, 54.3, 49.7, 47.2, 42.5, 47.4, 47.1},
			"lsi-kmeans": {66.5, 56.7, 55.1, 57.9, 60.7, 51.0, 49.2, 43.4, 49.4, 54.4},
			"nmf-ncw":    {55.7, 54.3, 56.2, 58.6, 59.2, 53.4, 46.5, 45.1, 49.1, 53.1},
			"gnmf":       {68.0, 69.5, 64.0, 60.4, 60.5, 60.1, 54.3, 50.3, 54.7, 60.2},
		},
		nmiStd: map[string][]float64{
			"kmeans":     {37.3, 26.6, 21.8, 22.3, 23.0, 20.3, 21.3, 20.9, 19.9},
			"lsi-kmeans": {38.0, 33.8, 28.1, 26.4, 26.2, 22.9, 25.6, 23.4, 22.7},
			"nmf-ncw":    {39.6, 31.5, 25.0, 22.7, 22.4, 18.8, 20.4, 19.3, 18.3},
			"gnmf":       {34.6, 24.8, 19.9, 19.9, 18.8, 14.3, 16.7, 15.0, 14.3},
		},
	}),
	Reference{
		ID:       "001-table1",
		Citation: "Cai, He, Wu, Han: Non-negative Matrix Factorization on Manifold, ICDM 2008, Table 1",
		Data:     "PIE",
		K:        kRange(4, 20, 2),
		Methods:  []string{"kmeans", "pca-kmeans", "ncut", "nmf-ncw", "gnmf"},
		Labels:   map[string]string{"kmeans": "K-means", "pca-kmeans": "PCA+K-means", "ncut": "NCut", "nmf-ncw": "NMF", "gnmf": "GNMF"},
		Notes: "CMU PIE: 68 persons, 21 images each under varying light. k runs over 4, 6, ..., 20 although the text " +
			"says two to ten (that holds for the COIL20 table only). " + notes001,
	}.with(printed{unit: unitPercent,
		acc: map[string][]float64{
			"kmeans":     {48.8, 43.2, 41.3, 40.8, 40.1, 38.4, 37.7, 38.3, 37.1, 40.6},
			"pca-kmeans": {54.6, 50.9, 44.4, 41.4, 40.9, 39.2, 38.6, 38.8, 37.5, 42.9},
			"ncut":       {99.0, 94.7, 86.5, 80.3, 79.6, 79.3, 78.4, 73.9, 77.0, 83.2},
			"nmf-ncw":    {69.9, 76.1, 78.9, 78.3, 78.3, 76.5, 77.4, 77.9, 77.0, 76.7},
			"gnmf":       {98.4, 97.2, 91.0, 88.4, 85.9, 85.0, 85.1, 82.2, 80.7, 88.2},
		},
		nmi: map[string][]float64{
			"kmeans":     {42.1, 48.3, 50.2, 53.0, 55.8, 56.1, 57.3, 59.2, 59.1, 53.5},
			"pca-kmeans": {47.5, 54.7, 53.2, 53.9, 55.8, 56.9, 58.2, 59.6, 59.3, 55.5},
			"ncut":       {98.6, 96.4, 92.3, 89.6, 89.5, 89.6, 89.4, 87.6, 88.4, 91.3},
			"nmf-ncw":    {63.6, 76.3, 81.8, 83.6, 85.1, 85.1, 86.5, 87.4, 87.4, 81.9},
			"gnmf":       {98.4, 98.0, 95.6, 94.9, 94.0, 93.9, 94.3, 93.1, 92.8, 95.0},
		},
	}),
	Reference{
		ID:       "001-table2",
		Citation: "Cai, He, Wu, Han: Non-negative Matrix Factorization on Manifold, ICDM 2008, Table 2",
		Data:     "COIL20",
		K:        kRange(2, 10, 1),
		Methods:  []string{"kmeans", "pca-kmeans", "ncut", "nmf-ncw", "gnmf"},
		Labels:   map[string]string{"kmeans": "K-means", "pca-kmeans": "PCA+K-means", "ncut": "NCut", "nmf-ncw": "NMF", "gnmf": "GNMF"},
		Notes:    "COIL20: 20 objects seen from varying angles. " + notes001,
	}.with(printed{unit: unitPercent,
		acc: map[string][]float64{
			"kmeans":     {90.0, 84.8, 81.7, 75.9, 76.5, 72.9, 71.8, 69.4, 69.3, 76.9},
			"pca-kmeans": {90.3, 85.1, 82.0, 76.7, 76.9, 74.0, 72.4, 70.5, 70.7, 77.6},
			"ncut":       {95.0, 90.0, 89.0, 83.0, 82.2, 77.3, 77.9, 75.9, 77.8, 83.1},
			"nmf-ncw":    {88.4, 79.4, 78.7, 72.1, 72.1, 68.8, 70.2, 68.3, 70.3, 74.3},
			"gnmf":       {96.7, 92.8, 92.7, 91.1, 91.0, 87.4, 85.2, 86.1, 85.0, 89.8},
		},
		nmi: map[string][]float64{
			"kmeans":     {70.0, 71.9, 74.3, 71.7, 74.4, 72.4, 74.0, 72.8, 74.8, 72.9},
			"pca-kmeans": {71.0, 72.3, 74.9, 72.3, 75.0, 72.7, 74.6, 73.8, 75.4, 73.6},
			"ncut":       {86.9, 84.2, 87.4, 82.0, 83.3, 80.1, 81.9, 82.6, 83.5, 83.5},
			"nmf-ncw":    {64.0, 64.9, 71.1, 67.2, 70.3, 67.7, 71.6, 71.5, 73.9, 69.1},
			"gnmf":       {90.8, 88.4, 90.3, 89.1, 91.5, 89.5, 89.1, 89.2, 89.6, 89.7},
		},
	}),
	Reference{
		ID:       "002-table4",
		Citation: "Cai, He, Han: Locally Consistent Concept Factorization for Document Clustering, IEEE TKDE, 2011, Table 4",
		Data:     "TDT2",
		K:        kRange(2, 10, 1),
		Methods:  methods002,
		Labels:   labels002,
		Notes:    "Accuracy only; NMI in 002-table5. TDT2: 10021 documents in 56 categories. " + notes002,
	}.with(printed{unit: unitFraction,
		acc: map[string][]float64{
			"kmeans":            {0.938, 0.882, 0.834, 0.778, 0.762, 0.708, 0.653, 0.651, 0.613, 0.758},
			"paper:km-ncw":      {0.985, 0.936, 0.950, 0.884, 0.902, 0.878, 0.834, 0.814, 0.775, 0.884},
			"aa":                {0.929, 0.846, 0.803, 0.753, 0.733, 0.705, 0.655, 0.641, 0.609, 0.742},
			"ncut":              {0.983, 0.960, 0.950, 0.883, 0.910, 0.880, 0.822, 0.811, 0.786, 0.887},
			"nmf":               {0.866, 0.804, 0.755, 0.705, 0.699, 0.681, 0.608, 0.611, 0.578, 0.701},
			"nmf-ncw":           {0.984, 0.959, 0.949, 0.885, 0.910, 0.878, 0.844, 0.824, 0.809, 0.894},
			"cf":                {0.863, 0.817, 0.779, 0.721, 0.708, 0.695, 0.658, 0.646, 0.594, 0.720},
			"cf-ncw":            {0.985, 0.965, 0.950, 0.894, 0.932, 0.896, 0.864, 0.846, 0.820, 0.906},
			"lccf":              {0.952, 0.896, 0.877, 0.821, 0.807, 0.794, 0.729, 0.738, 0.689, 0.811},
			"lccf-ncw":          {0.985, 0.979, 0.985, 0.973, 0.976, 0.981, 0.981, 0.971, 0.957, 0.976},
			"paper:km-poly":     {0.876, 0.786, 0.784, 0.738, 0.706, 0.698, 0.659, 0.660, 0.621, 0.725},
			"paper:km-ncw-poly": {0.970, 0.958, 0.951, 0.940, 0.947, 0.925, 0.926, 0.910, 0.889, 0.935},
			"paper:aa-poly":     {0.847, 0.801, 0.781, 0.753, 0.718, 0.699, 0.682, 0.654, 0.619, 0.728},
			"paper:nc-poly":     {0.993, 0.933, 0.948, 0.934, 0.942, 0.935, 0.941, 0.931, 0.925, 0.943},
			"cf-poly":           {0.862, 0.824, 0.817, 0.785, 0.791, 0.791, 0.742, 0.753, 0.726, 0.788},
			"cf-ncw-poly":       {0.993, 0.945, 0.929, 0.922, 0.941, 0.940, 0.926, 0.928, 0.932, 0.940},
			"lccf-poly":         {0.971, 0.917, 0.888, 0.843, 0.850, 0.830, 0.767, 0.777, 0.748, 0.843},
			"lccf-ncw-poly":     {0.993, 0.983, 0.991, 0.988, 0.987, 0.980, 0.976, 0.971, 0.961, 0.981},
		},
	}),
	Reference{
		ID:       "002-table5",
		Citation: "Cai, He, Han: Locally Consistent Concept Factorization for Document Clustering, IEEE TKDE, 2011, Table 5",
		Data:     "TDT2",
		K:        kRange(2, 10, 1),
		Methods:  methods002,
		Labels:   labels002,
		Notes:    "NMI only; accuracy in 002-table4. TDT2: 10021 documents in 56 categories. " + notes002,
	}.with(printed{unit: unitFraction,
		nmi: map[string][]float64{
			"kmeans":            {0.807, 0.771, 0.739, 0.691, 0.716, 0.668, 0.629, 0.648, 0.622, 0.699},
			"paper:km-ncw":      {0.937, 0.839, 0.885, 0.804, 0.841, 0.814, 0.775, 0.774, 0.750, 0.824},
			"aa":                {0.745, 0.696, 0.690, 0.650, 0.673, 0.652, 0.611, 0.614, 0.594, 0.658},
			"ncut":              {0.918, 0.891, 0.880, 0.798, 0.843, 0.819, 0.766, 0.767, 0.756, 0.826},
			"nmf":               {0.687, 0.678, 0.667, 0.625, 0.661, 0.648, 0.593, 0.616, 0.596, 0.641},
			"nmf-ncw":           {0.947, 0.903, 0.891, 0.807, 0.863, 0.832, 0.797, 0.792, 0.781, 0.846},
			"cf":                {0.678, 0.695, 0.678, 0.636, 0.670, 0.663, 0.626, 0.639, 0.605, 0.654},
			"cf-ncw":            {0.947, 0.908, 0.893, 0.817, 0.888, 0.852, 0.814, 0.805, 0.795, 0.858},
			"lccf":              {0.850, 0.791, 0.783, 0.726, 0.743, 0.733, 0.684, 0.696, 0.669, 0.742},
			"lccf-ncw":          {0.954, 0.949, 0.949, 0.912, 0.941, 0.947, 0.946, 0.928, 0.913, 0.938},
			"paper:km-poly":     {0.556, 0.542, 0.595, 0.555, 0.571, 0.567, 0.539, 0.564, 0.546, 0.559},
			"paper:km-ncw-poly": {0.850, 0.868, 0.863, 0.856, 0.859, 0.847, 0.851, 0.826, 0.816, 0.849},
			"paper:aa-poly":     {0.417, 0.487, 0.502, 0.499, 0.523, 0.521, 0.492, 0.517, 0.502, 0.495},
			"paper:nc-poly":     {0.906, 0.834, 0.863, 0.855, 0.880, 0.872, 0.870, 0.858, 0.847, 0.865},
			"cf-poly":           {0.576, 0.634, 0.664, 0.659, 0.691, 0.703, 0.660, 0.695, 0.670, 0.661},
			"cf-ncw-poly":       {0.908, 0.834, 0.816, 0.822, 0.879, 0.887, 0.846, 0.857, 0.852, 0.856},
			"lccf-poly":         {0.924, 0.828, 0.793, 0.754, 0.793, 0.771, 0.721, 0.744, 0.720, 0.783},
			"lccf-ncw-poly":     {0.959, 0.940, 0.949, 0.941, 0.954, 0.942, 0.937, 0.934, 0.912, 0.941},
		},
	}),
	Reference{
		ID:       "002-table6",
		Citation: "Cai, He, Han: Locally Consistent Concept Factorization for Document Clustering, IEEE TKDE, 2011, Table 6",
		Data:     "Reuters-21578",
		K:        kRange(2, 10, 1),
		Methods:  methods002,
		Labels:   labels002,
		Notes: "Accuracy only; NMI in 002-table7. Reuters-21578: 8213 documents in 41 categories. " + notes002 +
			" The kernel LCCF row repeats the linear LCCF row digit for digit, in this table and in Table 7, " +
			"most likely a copying slip in the paper; treat lccf-poly here with suspicion.",
	}.with(printed{unit: unitFraction,
		acc: map[string][]float64{
			"kmeans":            {0.825, 0.692, 0.652, 0.588, 0.589, 0.539, 0.469, 0.447, 0.480, 0.587},
			"paper:km-ncw":      {0.899, 0.853, 0.802, 0.707, 0.693, 0.618, 0.572, 0.568, 0.596, 0.701},
			"aa":                {0.812, 0.716, 0.648, 0.596, 0.573, 0.536, 0.467, 0.450, 0.478, 0.586},
			"ncut":              {0.898, 0.832, 0.774, 0.724, 0.698, 0.658, 0.575, 0.585, 0.613, 0.706},
			"nmf":               {0.828, 0.712, 0.683, 0.580, 0.582, 0.535, 0.448, 0.457, 0.490, 0.591},
			"nmf-ncw":           {0.894, 0.846, 0.786, 0.720, 0.701, 0.667, 0.581, 0.575, 0.625, 0.711},
			"cf":                {0.831, 0.715, 0.694, 0.592, 0.614, 0.549, 0.451, 0.456, 0.508, 0.601},
			"cf-ncw":            {0.893, 0.852, 0.795, 0.720, 0.708, 0.673, 0.594, 0.587, 0.617, 0.715},
			"lccf":              {0.868, 0.756, 0.752, 0.698, 0.677, 0.606, 0.598, 0.568, 0.590, 0.679},
			"lccf-ncw":          {0.894, 0.854, 0.804, 0.750, 0.766, 0.756, 0.712, 0.704, 0.662, 0.767},
			"paper:km-poly":     {0.742, 0.669, 0.616, 0.584, 0.542, 0.512, 0.508, 0.470, 0.435, 0.564},
			"paper:km-ncw-poly": {0.873, 0.862, 0.769, 0.702, 0.684, 0.669, 0.648, 0.620, 0.610, 0.715},
			"paper:aa-poly":     {0.744, 0.680, 0.605, 0.604, 0.560, 0.541, 0.556, 0.526, 0.471, 0.587},
			"paper:nc-poly":     {0.874, 0.848, 0.783, 0.747, 0.734, 0.728, 0.718, 0.688, 0.651, 0.752},
			"cf-poly":           {0.794, 0.708, 0.673, 0.627, 0.610, 0.564, 0.568, 0.538, 0.555, 0.626},
			"cf-ncw-poly":       {0.895, 0.848, 0.750, 0.764, 0.714, 0.740, 0.762, 0.714, 0.631, 0.758},
			"lccf-poly":         {0.868, 0.756, 0.752, 0.698, 0.677, 0.606, 0.598, 0.568, 0.590, 0.679},
			"lccf-ncw-poly":     {0.908, 0.854, 0.807, 0.789, 0.770, 0.736, 0.738, 0.710, 0.670, 0.776},
		},
	}),
	Reference{
		ID:       "002-table7",
		Citation: "Cai, He, Han: Locally Consistent Concept Factorization for Document Clustering, IEEE TKDE, 2011, Table 7",
		Data:     "Reuters-21578",
		K:        kRange(2, 10, 1),
		Methods:  methods002,
		Labels:   labels002,
		Notes: "NMI only; accuracy in 002-table6. Reuters-21578: 8213 documents in 41 categories. " + notes002 +
			" The kernel LCCF row repeats the linear LCCF row digit for digit, in this table and in Table 6, " +
			"most likely a copying slip in the paper; treat lccf-poly here with suspicion.",
	}.with(printed{unit: unitFraction,
		nmi: map[string][]float64{
			"kmeans":            {0.428, 0.409, 0.483, 0.428, 0.482, 0.460, 0.393, 0.393, 0.478, 0.439},
			"paper:km-ncw":      {0.627, 0.630, 0.655, 0.525, 0.572, 0.522, 0.454, 0.464, 0.540, 0.554},
			"aa":                {0.368, 0.353, 0.431, 0.381, 0.430, 0.424, 0.349, 0.363, 0.435, 0.393},
			"ncut":              {0.596, 0.584, 0.586, 0.500, 0.552, 0.508, 0.434, 0.441, 0.524, 0.525},
			"nmf":               {0.436, 0.410, 0.509, 0.424, 0.485, 0.449, 0.362, 0.391, 0.464, 0.437},
			"nmf-ncw":           {0.608, 0.641, 0.626, 0.533, 0.576, 0.545, 0.461, 0.471, 0.556, 0.558},
			"cf":                {0.440, 0.414, 0.521, 0.425, 0.494, 0.456, 0.363, 0.396, 0.476, 0.443},
			"cf-ncw":            {0.605, 0.648, 0.631, 0.534, 0.582, 0.549, 0.466, 0.475, 0.550, 0.560},
			"lccf":              {0.503, 0.452, 0.553, 0.485, 0.519, 0.485, 0.447, 0.445, 0.513, 0.489},
			"lccf-ncw":          {0.599, 0.652, 0.668, 0.556, 0.623, 0.601, 0.538, 0.533, 0.567, 0.593},
			"paper:km-poly":     {0.183, 0.206, 0.263, 0.218, 0.260, 0.260, 0.212, 0.231, 0.276, 0.234},
			"paper:km-ncw-poly": {0.509, 0.590, 0.539, 0.446, 0.506, 0.468, 0.424, 0.412, 0.474, 0.485},
			"paper:aa-poly":     {0.116, 0.141, 0.208, 0.156, 0.195, 0.177, 0.153, 0.169, 0.220, 0.171},
			"paper:nc-poly":     {0.490, 0.517, 0.528, 0.433, 0.504, 0.479, 0.442, 0.437, 0.458, 0.476},
			"cf-poly":           {0.312, 0.329, 0.401, 0.332, 0.405, 0.377, 0.336, 0.349, 0.428, 0.363},
			"cf-ncw-poly":       {0.567, 0.529, 0.488, 0.446, 0.484, 0.490, 0.528, 0.472, 0.427, 0.492},
			"lccf-poly":         {0.503, 0.452, 0.553, 0.485, 0.519, 0.485, 0.447, 0.445, 0.513, 0.489},
			"lccf-ncw-poly":     {0.648, 0.640, 0.677, 0.576, 0.632, 0.591, 0.566, 0.544, 0.583, 0.606},
		},
	}),
	Reference{
		ID:       "003-table1",
		Citation: "Cai, He, Wang, Bao, Han: Locality Preserving Nonnegative Matrix Factorization, IJCAI 2009, Table 1",
		Data:     "TDT2",
		K:        kRange(2, 10, 1),
		Methods:  []string{"kmeans", "aa", "ncut", "nmf-kl", "lpnmf"},
		Labels:   map[string]string{"kmeans": "kmeans", "aa": "AA", "ncut": "NC", "nmf-kl": "NMF", "lpnmf": "LPNMF"},
		Notes:    "TDT2: 9394 documents in 30 categories. " + notes003,
	}.with(printed{unit: unitPercent,
		nmi: map[string][]float64{
			"kmeans": {82.7, 83.4, 80.7, 78.1, 81.6, 79.2, 78.1, 79.8, 73.1, 79.6},
			"aa":     {74.7, 82.2, 76.7, 75.9, 79.5, 79.7, 74.2, 75.6, 69.2, 76.4},
			"ncut":   {97.7, 95.1, 89.6, 92.1, 92.3, 87.7, 83.1, 87.7, 76.7, 89.1},
			"nmf-kl": {95.7, 89.0, 86.2, 83.6, 91.9, 84.8, 81.7, 86.6, 81.2, 86.7},
			"lpnmf":  {98.3, 95.1, 94.4, 93.9, 92.1, 88.6, 86.6, 90.9, 83.4, 91.5},
		},
	}),
	Reference{
		ID:       "003-table2",
		Citation: "Cai, He, Wang, Bao, Han: Locality Preserving Nonnegative Matrix Factorization, IJCAI 2009, Table 2",
		Data:     "Reuters-21578",
		K:        kRange(2, 10, 1),
		Methods:  []string{"kmeans", "aa", "ncut", "nmf-kl", "lpnmf"},
		Labels:   map[string]string{"kmeans": "kmeans", "aa": "AA", "ncut": "NC", "nmf-kl": "NMF", "lpnmf": "LPNMF"},
		Notes: "Reuters-21578: 8076 documents in 30 categories as printed, against 8067 in paper 000 for what reads " +
			"as the same selection (probably swapped digits). " + notes003,
	}.with(printed{unit: unitPercent,
		nmi: map[string][]float64{
			"kmeans": {44.9, 37.5, 50.4, 46.9, 55.1, 54.0, 41.8, 43.9, 54.8, 47.7},
			"aa":     {39.2, 39.2, 43.9, 42.1, 45.1, 44.9, 32.4, 36.2, 44.7, 40.9},
			"ncut":   {56.3, 51.2, 57.8, 50.6, 59.1, 54.0, 39.7, 45.1, 51.5, 51.7},
			"nmf-kl": {60.2, 50.7, 61.1, 51.3, 59.3, 56.3, 40.4, 45.9, 55.4, 53.4},
			"lpnmf":  {64.0, 55.4, 62.9, 53.1, 59.9, 57.7, 44.7, 48.1, 55.5, 55.7},
		},
	}),
	Reference{
		ID:       "004-table2",
		Citation: "Xu, Liu, Gong: Document Clustering Based on Non-negative Matrix Factorization, SIGIR 2003, Table 2",
		Data:     "TDT2",
		K:        kRange(2, 10, 1),
		Methods:  []string{"aa", "ncut", "nmf", "nmf-ncw"},
		Labels:   map[string]string{"aa": "AA", "ncut": "NC", "nmf": "NMF", "nmf-ncw": "NMF-NCW"},
		Notes: "TDT2: 7803 single-label documents in the 56 events with at least 5 documents (its Table 1 still " +
			"lists a smallest cluster of 1). " + notes004,
	}.with(printed{unit: unitFraction,
		acc: map[string][]float64{
			"aa":      {0.934, 0.863, 0.830, 0.758, 0.712, 0.707, 0.641, 0.664, 0.638, 0.750},
			"ncut":    {0.990, 0.951, 0.918, 0.857, 0.802, 0.783, 0.717, 0.754, 0.729, 0.833},
			"nmf":     {0.946, 0.899, 0.866, 0.812, 0.773, 0.750, 0.697, 0.708, 0.685, 0.793},
			"nmf-ncw": {0.993, 0.981, 0.953, 0.925, 0.880, 0.857, 0.824, 0.837, 0.835, 0.898},
		},
		nmi: map[string][]float64{
			"aa":      {0.834, 0.754, 0.743, 0.696, 0.663, 0.679, 0.624, 0.663, 0.656, 0.701},
			"ncut":    {0.954, 0.890, 0.846, 0.802, 0.761, 0.756, 0.695, 0.741, 0.736, 0.798},
			"nmf":     {0.854, 0.790, 0.786, 0.740, 0.701, 0.704, 0.651, 0.683, 0.681, 0.732},
			"nmf-ncw": {0.972, 0.931, 0.909, 0.874, 0.823, 0.816, 0.782, 0.804, 0.812, 0.858},
		},
	}),
	Reference{
		ID:       "004-table3",
		Citation: "Xu, Liu, Gong: Document Clustering Based on Non-negative Matrix Factorization, SIGIR 2003, Table 3",
		Data:     "Reuters-21578",
		K:        kRange(2, 10, 1),
		Methods:  []string{"aa", "ncut", "nmf", "nmf-ncw"},
		Labels:   map[string]string{"aa": "AA", "ncut": "NC", "nmf": "NMF", "nmf-ncw": "NMF-NCW"},
		Notes:    "Reuters-21578: 9494 single-label documents in the 51 categories with at least 5 documents. " + notes004,
	}.with(printed{unit: unitFraction,
		acc: map[string][]float64{
			"aa":      {0.784, 0.709, 0.629, 0.655, 0.611, 0.584, 0.581, 0.599, 0.600, 0.639},
			"ncut":    {0.821, 0.765, 0.734, 0.695, 0.678, 0.654, 0.613, 0.640, 0.634, 0.693},
			"nmf":     {0.824, 0.731, 0.655, 0.686, 0.650, 0.624, 0.618, 0.634, 0.634, 0.673},
			"nmf-ncw": {0.837, 0.803, 0.758, 0.722, 0.728, 0.696, 0.651, 0.692, 0.677, 0.729},
		},
		nmi: map[string][]float64{
			"aa":      {0.399, 0.482, 0.480, 0.565, 0.537, 0.560, 0.559, 0.603, 0.607, 0.532},
			"ncut":    {0.484, 0.536, 0.581, 0.590, 0.627, 0.599, 0.592, 0.633, 0.647, 0.588},
			"nmf":     {0.437, 0.489, 0.487, 0.587, 0.559, 0.575, 0.578, 0.614, 0.626, 0.550},
			"nmf-ncw": {0.494, 0.574, 0.604, 0.600, 0.650, 0.624, 0.606, 0.659, 0.661, 0.608},
		},
	}),
}

// methods002 are the rows of paper 002's Tables 4 to 7, linear then
// degree-2 polynomial kernel.
var methods002 = []string{
	"kmeans", "paper:km-ncw", "aa", "ncut", "nmf", "nmf-ncw", "cf", "cf-ncw", "lccf", "lccf-ncw",
	"paper:km-poly", "paper:km-ncw-poly", "paper:aa-poly", "paper:nc-poly",
	"cf-poly", "cf-ncw-poly", "lccf-poly", "lccf-ncw-poly",
}

// labels002 gives paper 002's row headings; the kernel rows repeat the
// headings of the linear ones under a separator line.
var labels002 = map[string]string{
	"kmeans": "KM", "paper:km-ncw": "KM-NCW", "aa": "AA", "ncut": "NC",
	"nmf": "NMF", "nmf-ncw": "NMF-NCW", "cf": "CF", "cf-ncw": "CF-NCW", "lccf": "LCCF", "lccf-ncw": "LCCF-NCW",
	"paper:km-poly": "KM (polynomial kernel)", "paper:km-ncw-poly": "KM-NCW (polynomial kernel)",
	"paper:aa-poly": "AA (polynomial kernel)", "paper:nc-poly": "NC (polynomial kernel)",
	"cf-poly": "CF (polynomial kernel)", "cf-ncw-poly": "CF-NCW (polynomial kernel)",
	"lccf-poly": "LCCF (polynomial kernel)", "lccf-ncw-poly": "LCCF-NCW (polynomial kernel)",
}

// References returns every published table, sorted by ID. The references
// are deep copies: a caller may modify them freely.
func References() []Reference {
	out := make([]Reference, len(references))
	for i, r := range references {
		out[i] = r.clone()
	}
	slices.SortFunc(out, func(a, b Reference) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// LookupReference returns a copy of the table with the given ID, or an
// error listing the known IDs.
func LookupReference(id string) (Reference, error) {
	ids := make([]string, len(references))
	for i, r := range references {
		if r.ID == id {
			return r.clone(), nil
		}
		ids[i] = r.ID
	}
	slices.Sort(ids)
	return Reference{}, fmt.Errorf("experiment: unknown reference %q (known: %s)", id, strings.Join(ids, ", "))
}

// clone returns a deep copy of r.
func (r Reference) clone() Reference {
	r.K = slices.Clone(r.K)
	r.Methods = slices.Clone(r.Methods)
	r.Labels = maps.Clone(r.Labels)
	r.Accuracy = cloneColumns(r.Accuracy)
	r.AccuracyStd = cloneColumns(r.AccuracyStd)
	r.AccuracyAverage = maps.Clone(r.AccuracyAverage)
	r.NMI = cloneColumns(r.NMI)
	r.NMIStd = cloneColumns(r.NMIStd)
	r.NMIAverage = maps.Clone(r.NMIAverage)
	return r
}

// cloneColumns returns a deep copy of cols, nil for nil.
func cloneColumns(cols map[string][]float64) map[string][]float64 {
	if cols == nil {
		return nil
	}
	out := make(map[string][]float64, len(cols))
	for m, v := range cols {
		out[m] = slices.Clone(v)
	}
	return out
}

// metric is one of the two scores as Compare reads it from a Table and a
// Reference.
type metric struct {
	name    string
	perK    map[string][]float64
	average map[string]float64
	ours    func(Score) float64
}

// Compare writes, in Markdown, t beside the published table ref for every
// method both have: the averages over k of each score the paper reports,
// ours and the paper's, with the difference in percentage points (ours
// minus paper), then a table per score with a row per k of the paper and
// cells "ours / paper (difference)". Values are percentages with one
// decimal; the difference is taken after rounding ours to that decimal, so
// that it matches the printed numbers. A closing line lists the methods
// found on one side only. Where the two sets of k differ it says so, since
// the averages then run over different k.
func (t *Table) Compare(w io.Writer, ref Reference) error {
	if t == nil {
		return fmt.Errorf("experiment: comparing a nil table with %s", ref.ID)
	}
	var metrics []metric
	if ref.Accuracy != nil {
		metrics = append(metrics, metric{"Accuracy", ref.Accuracy, ref.AccuracyAverage, func(s Score) float64 { return s.AccuracyMean }})
	}
	if ref.NMI != nil {
		metrics = append(metrics, metric{"NMI", ref.NMI, ref.NMIAverage, func(s Score) float64 { return s.NMIMean }})
	}
	var common, paperOnly, oursOnly []string
	for _, m := range ref.Methods {
		if slices.Contains(t.Methods, m) {
			common = append(common, m)
		} else {
			paperOnly = append(paperOnly, fmt.Sprintf("%s (%s)", m, ref.Labels[m]))
		}
	}
	for _, m := range t.Methods {
		if !slices.Contains(ref.Methods, m) {
			oursOnly = append(oursOnly, m)
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "## %s: %s\n\n%s.\n", ref.ID, ref.Data, ref.Citation)
	if !slices.Equal(t.K, ref.K) {
		fmt.Fprintf(&b, "\nOur k (%s) differ from the paper's (%s): the averages run over different k.\n", joinInts(t.K), joinInts(ref.K))
	}
	if len(common) > 0 && len(metrics) > 0 {
		b.WriteString("\nAverage over k, in %; difference = ours - paper, in points.\n\n| method | paper's column |")
		for _, mt := range metrics {
			fmt.Fprintf(&b, " %s ours | %s paper | difference |", mt.name, mt.name)
		}
		b.WriteString("\n|---|---|")
		for range metrics {
			b.WriteString("---|---|---|")
		}
		b.WriteString("\n")
		for _, m := range common {
			fmt.Fprintf(&b, "| %s | %s |", m, ref.Labels[m])
			for _, mt := range metrics {
				s, ok := t.Average[m]
				paper, has := mt.average[m]
				fmt.Fprintf(&b, " %s | %s | %s |", ours(s, ok, mt), points(paper, has), difference(s, ok, mt, paper, has))
			}
			b.WriteString("\n")
		}
		for _, mt := range metrics {
			fmt.Fprintf(&b, "\n%s per k: ours / paper (difference), in %%.\n\n| k |", mt.name)
			for _, m := range common {
				fmt.Fprintf(&b, " %s |", m)
			}
			b.WriteString("\n|---|")
			for range common {
				b.WriteString("---|")
			}
			b.WriteString("\n")
			for i, k := range ref.K {
				fmt.Fprintf(&b, "| %d |", k)
				for _, m := range common {
					s, ok := t.Cells[m][k]
					col := mt.perK[m]
					has := i < len(col)
					var paper float64
					if has {
						paper = col[i]
					}
					fmt.Fprintf(&b, " %s / %s (%s) |", ours(s, ok, mt), points(paper, has), difference(s, ok, mt, paper, has))
				}
				b.WriteString("\n")
			}
		}
	}
	if len(common) == 0 {
		b.WriteString("\nNo method in common.\n")
	}
	if len(oursOnly) > 0 || len(paperOnly) > 0 {
		b.WriteString("\n")
		if len(oursOnly) > 0 {
			fmt.Fprintf(&b, "Only in ours: %s.", strings.Join(oursOnly, ", "))
			if len(paperOnly) > 0 {
				b.WriteString(" ")
			}
		}
		if len(paperOnly) > 0 {
			fmt.Fprintf(&b, "Only in the paper: %s.", strings.Join(paperOnly, ", "))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tenths rounds a fraction to a percentage with one decimal.
func tenths(x float64) float64 { return math.Round(x*1000) / 10 }

// points formats a fraction as a percentage with one decimal, "–" when
// absent.
func points(x float64, ok bool) string {
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.1f", tenths(x))
}

// ours formats our score s of mt, "–" when absent.
func ours(s Score, ok bool, mt metric) string { return points(mt.ours(s), ok) }

// difference formats ours minus the paper in percentage points, signed,
// from both values rounded as printed; "–" when either is absent.
func difference(s Score, ok bool, mt metric, paper float64, has bool) string {
	if !ok || !has {
		return "–"
	}
	d := math.Round((tenths(mt.ours(s))-tenths(paper))*10) / 10
	if d == 0 {
		d = 0 // no "-0.0"
	}
	return fmt.Sprintf("%+.1f", d)
}

// joinInts returns x as "1, 2, 3".
func joinInts(x []int) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}
