# The fits a rank sweep needs, done by RcppML: one cold nmf per rank and
# replicate on a prepared matrix, timed together, for bench/rankcost.sh.
# RcppML 0.3.7 (Debian's r-cran-rcppml) has no cross-validation and no
# mask, so this times the plain fits a cross-validated sweep is made of,
# at RcppML's defaults (tol 1e-4, maxit 100).
#
# Usage: Rscript bench/rcppml_fits.R MATRIX.mtx KS REPLICATES THREADS
#   MATRIX.mtx  features x samples (RcppML's orientation), Matrix Market
#   KS          ranks, comma-separated, e.g. 2,6,10
# Prints one JSON object: seconds (all fits), fits, iterations, per_k.
suppressMessages({
  library(Matrix)
  library(RcppML)
})
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 4) stop("usage: rcppml_fits.R MATRIX.mtx KS REPLICATES THREADS")
a <- as(readMM(args[1]), "CsparseMatrix")
ks <- as.integer(strsplit(args[2], ",")[[1]])
reps <- as.integer(args[3])
setRcppMLthreads(as.integer(args[4]))
iters <- integer(0)
secs <- numeric(0)
for (k in ks) {
  for (r in seq_len(reps)) {
    t <- system.time(m <- RcppML::nmf(a, k, seed = r, verbose = FALSE))[["elapsed"]]
    iters <- c(iters, m$iter)
    secs <- c(secs, t)
  }
}
cat(sprintf('{"rcppml": "%s", "seconds": %.3f, "fits": %d, "iterations": %d, "per_k_seconds": [%s]}\n',
  as.character(packageVersion("RcppML")), sum(secs), length(secs), sum(iters),
  paste(sprintf("%.3f", tapply(secs, rep(ks, each = reps), sum)), collapse = ", ")))
