package graph

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
)

// metricView returns the rows of a in the space where metric m is the
// Euclidean distance: a itself for EuclideanMetric; for CosineMetric a
// copy with every row scaled to unit length; for CorrelationMetric a copy
// with every row centred (its mean over the features subtracted) and then
// scaled to unit length. A row of zero length, or one whose centred
// length is below 1e-10 of its length (a constant row, up to the rounding
// of its mean), becomes zero. The rows are transformed in parallel, each
// by itself, so the copy is the same for any thread count.
func metricView(a blas64.General, m Metric, threads int) blas64.General {
	m = m.ForDense(a.Cols)
	if m == EuclideanMetric {
		return a
	}
	out := blas64.General{Rows: a.Rows, Cols: a.Cols, Stride: a.Cols, Data: make([]float64, a.Rows*a.Cols)}
	parallel.For(a.Rows, threads, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			src := a.Data[i*a.Stride : i*a.Stride+a.Cols]
			dst := out.Data[i*out.Stride : i*out.Stride+out.Cols]
			copy(dst, src)
			norm0 := math.Sqrt(asm.Dot(dst, dst))
			if m == CorrelationMetric && len(dst) > 0 {
				var sum float64
				for _, x := range dst {
					sum += x
				}
				mean := sum / float64(len(dst))
				for j := range dst {
					dst[j] -= mean
				}
			}
			norm := math.Sqrt(asm.Dot(dst, dst))
			if !(norm > 1e-10*norm0) {
				clear(dst)
				continue
			}
			for j := range dst {
				dst[j] /= norm
			}
		}
	})
	return out
}

// checkSparseMetric reports the metrics that sparse samples cannot be
// compared by.
func (o *Options) checkSparseMetric() error {
	switch o.Metric {
	case AutoMetric, CosineMetric:
		return nil
	}
	return fmt.Errorf("graph: the %v metric is for dense samples; sparse samples are compared by cosine similarity (metric auto or cosine)", o.Metric)
}
