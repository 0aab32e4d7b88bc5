//go:build noasm || !amd64

package kernels

func asmPaths() []string { return nil }

func useAsm(string) {}
