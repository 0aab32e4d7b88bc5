// Package corpus generates synthetic term-document corpora for scaling
// tests and benchmarks: documents whose words follow a Zipf law over the
// vocabulary, each with a planted class whose own band of terms it draws
// part of its words from. The same Options give the same corpus whatever
// the thread count.
//
// It imports sparse only; nothing but tests, benchmarks and the gencorpus
// command imports it.
package corpus
