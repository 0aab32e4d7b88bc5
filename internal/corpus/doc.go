// Package corpus generates synthetic term-document corpora for scaling
// tests and benchmarks: documents whose words follow a Zipf law over the
// vocabulary, each with a planted class whose own band of terms it draws
// part of its words from, and part from its group's terms: a story of a
// class (the way a news corpus reports an event several times) or an
// author (the way a blog or forum corpus holds many documents of each
// writer, whose nearest neighbours are then one another rather than
// their topic). A long tail of one-off words can be added. The same
// Options give the same corpus whatever the thread count.
//
// LowRank plants a rank in a non-negative matrix, for the tests and
// benchmarks of rank selection.
//
// It imports sparse and gonum's mat only; nothing but tests, benchmarks
// and the gencorpus command imports it.
package corpus
