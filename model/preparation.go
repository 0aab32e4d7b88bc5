package model

import (
	"fmt"
	"math"

	"github.com/manifactor/manifactor/dataset"
)

// Preparation is what Prepare learned from a training corpus: which
// features it kept, their idf and the weighting and normalization it
// applied. Apply prepares new samples with it, so that they are weighed
// by the training corpus's idf and land on the training features, as a
// fitted model needs them.
type Preparation struct {
	// Weighting and Normalize are what was applied (never Auto).
	Weighting Weighting
	Normalize Normalization
	// IDF is the training corpus's log(n / df) of each kept feature; nil
	// when nothing was weighted.
	IDF []float64
	// Features names the kept features in the prepared data's order:
	// the source's names (a vocabulary), or "f1", "f2", ... by the
	// source's column when it had none.
	Features []string
	// Columns is each kept feature's column in the source.
	Columns []int
	// SourceFeatures is the source's feature count, and Named reports
	// that the source named its features: new data with names of their
	// own are aligned by name, other new data by column, with the same
	// feature count as the source.
	SourceFeatures int
	Named          bool

	// weighed reports that the source came weighed already (prepared
	// before), so that its idf is not known here.
	weighed bool
}

// Alignment reports how Apply matched new samples' features with the
// training ones.
type Alignment struct {
	// ByName reports alignment by feature name; otherwise by column.
	ByName bool
	// Unknown counts the new data's features that the training data did
	// not have (or dropped as unused), and UnknownEntries their non-zero
	// entries: they are ignored.
	Unknown, UnknownEntries int
}

// check reports a Preparation that is not self-consistent (one read from
// a damaged model).
func (p *Preparation) check() error {
	m := len(p.Features)
	switch {
	case p.Weighting <= AutoWeighting || int(p.Weighting) >= len(weightingNames):
		return fmt.Errorf("weighting %v: want none, tfidf or log-tfidf", p.Weighting)
	case p.Normalize <= AutoNormalization || int(p.Normalize) >= len(normalizationNames):
		return fmt.Errorf("normalization %v: want none or l2", p.Normalize)
	case m == 0:
		return fmt.Errorf("no features")
	case len(p.Columns) != m:
		return fmt.Errorf("%d feature columns for %d features", len(p.Columns), m)
	case (p.Weighting == NoWeighting) != (p.IDF == nil):
		return fmt.Errorf("weighting %v with %d idf values", p.Weighting, len(p.IDF))
	case p.IDF != nil && len(p.IDF) != m:
		return fmt.Errorf("%d idf values for %d features", len(p.IDF), m)
	}
	seen := make(map[string]bool, m)
	for q, j := range p.Columns {
		if j < 0 || j >= p.SourceFeatures || (q > 0 && j <= p.Columns[q-1]) {
			return fmt.Errorf("feature column %d (of %d in the source) out of order or range", j+1, p.SourceFeatures)
		}
		if seen[p.Features[q]] {
			return fmt.Errorf("feature name %q repeated", p.Features[q])
		}
		seen[p.Features[q]] = true
	}
	for q, x := range p.IDF {
		if !(x >= 0) || math.IsInf(x, 0) {
			return fmt.Errorf("idf %v of feature %q", x, p.Features[q])
		}
	}
	return nil
}

// Apply prepares new samples as the training corpus was prepared: their
// features aligned with the training features (by name when both sides
// name them, else by column, the feature counts equal), weighed by the
// training idf and scaled as the training samples were. Features the
// training data did not keep are ignored and counted. ds is changed in
// place and must not be used afterwards; the result may share its
// storage. Errors name the source: a feature-count mismatch, values the
// weighting cannot take.
func (p *Preparation) Apply(ds *dataset.Dataset) (*dataset.Dataset, Alignment, error) {
	var al Alignment
	if ds == nil {
		return nil, al, fmt.Errorf("model: nil data set")
	}
	if ds.Weighted {
		return nil, al, fmt.Errorf("%s: already weighed (prepared before): a model weighs new samples by its training idf, so give it them as read", ds.Source)
	}
	if err := ds.Validate(); err != nil {
		return nil, al, err
	}
	if err := ds.CheckNonNegative(); err != nil {
		return nil, al, err
	}
	_, m0 := ds.Dims()
	m := len(p.Features)
	to := make([]int, m0)
	if p.Named && ds.Vocabulary != nil {
		al.ByName = true
		index := make(map[string]int, m)
		for q, name := range p.Features {
			index[name] = q
		}
		for j, name := range ds.Vocabulary {
			q, ok := index[name]
			if !ok {
				q = -1
			}
			to[j] = q
		}
	} else {
		if m0 != p.SourceFeatures {
			what := "columns"
			if p.Named {
				what = "named features (the new data names none, so columns are matched)"
			}
			return nil, al, fmt.Errorf("%s: %d features, but the model was trained on %d %s", ds.Source, m0, p.SourceFeatures, what)
		}
		for j := range to {
			to[j] = -1
		}
		for q, j := range p.Columns {
			to[j] = q
		}
	}
	al.Unknown, al.UnknownEntries = ds.MapFeatures(to, m, append([]string(nil), p.Features...))
	switch p.Weighting {
	case TFIDF:
		ds.WeighTerms(p.IDF, false)
	case LogTFIDF:
		if err := ds.CheckLogCounts(); err != nil {
			return nil, al, err
		}
		ds.WeighTerms(p.IDF, true)
	}
	if p.Weighting != NoWeighting || p.Normalize != NoNormalization {
		ds.Weighted = true
	}
	if p.Normalize == L2 {
		ds.NormalizeL2()
	}
	return ds, al, nil
}
