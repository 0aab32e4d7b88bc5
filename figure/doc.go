// Package figure draws the line charts that the papers' evaluation is read
// from: clustering accuracy and normalized mutual information against the
// number of clusters, sensitivity to the regularization weight lambda and to
// the number of nearest neighbours p, and the objective against the
// iteration. Each chart is written twice, as PNG for a README and as SVG for
// print, with gonum.org/v1/plot.
//
// Data come in as plain slices and every value is checked before anything
// is drawn: a NaN, an infinity, or a non-positive value on a logarithmic
// axis is an error naming the series and the point, never a silently
// missing point or a broken axis.
//
// This package must not import any other package of this module, so that
// any command or experiment can draw any kind of figure from its results.
package figure
