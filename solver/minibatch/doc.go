// Package minibatch fits NMF to samples that arrive in batches, so that
// a corpus need not be held whole: under the Frobenius loss, the online
// matrix factorization of Mairal et al. (2010), as scikit-learn's
// MiniBatchNMF and gensim's Nmf do it, with coordinate descent in both
// steps; under the KL divergence (Options.Loss), the online
// multiplicative update of scikit-learn's MiniBatchNMF for U, with each
// batch's V by coordinate Newton steps (kl.go says more).
//
// X (samples x features) ~ V U^T, U (features x k) and V (samples x k)
// non-negative. Each batch's rows of V are the non-negative least
// squares fit to the current U (Sweeps coordinate-descent sweeps from
// zero); the batch then adds V_b^T V_b and X_b^T V_b to the sufficient
// statistics A (k x k) and B (features x k), and U takes USweeps
// coordinate-descent sweeps (one by default) on tr(U^T U A) -
// 2 tr(U^T B), the objective over every sample seen with their V fixed.
// Each call takes its samples in a seeded random order. A Model keeps U, A and B,
// so PartialFit can take more samples later; between passes over the
// same samples Fit discounts the statistics by Forget, so that the rows
// of V computed with an older U weigh less.
//
// Every step is a sequence of one-variable steps in a fixed order (or,
// for KL's U, one entry-wise update), and the sums are taken in the
// batch's order or by fixed blocks, so the result does not depend on the
// number of threads.
//
// It is the first part of fitting corpora larger than memory: it reads
// the samples it is given, so a caller can give a corpus block by block.
// Besides the standard library it uses sparse, internal/asm (the
// dispatched dot and axpy kernels), internal/klstep and internal/parallel; it
// must not import dataset, model, graph or cmd, so that the pipeline can
// call it.
package minibatch
