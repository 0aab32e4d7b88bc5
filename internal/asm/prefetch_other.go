//go:build noasm || !amd64

package asm

// Without the assembly a prefetch is a hint not given.

func prefetchRow32(ind []int32, val []float32, lo, hi int) {}

func prefetchInt(s []int, i int) {}
