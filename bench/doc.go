// Package bench holds the benchmarks that need the real data sets in
// ../shared/data (they skip when it is absent) and the scripts that run
// manifactor side by side with scikit-learn. Recorded figures, with the
// commands that reproduce them, are in docs/PERFORMANCE.md.
package bench
