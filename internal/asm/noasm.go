//go:build noasm || !amd64

package asm

func asmPaths() []string { return nil }

func useAsm(string) {}
