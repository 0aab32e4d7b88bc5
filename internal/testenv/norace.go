//go:build !race

package testenv

// Race reports that the tests run under the race detector.
const Race = false
