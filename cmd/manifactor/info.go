package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/dist/mpi"
	"github.com/manifactor/manifactor/kernels"
)

type infoOutput struct {
	BLAS          string   `json:"blas"`
	BLASAvailable []string `json:"blas_available"`
	// BLASScope says that the backend serves every gonum blas64 call of
	// the process, a library user's own included.
	BLASScope        string   `json:"blas_scope"`
	Kernels          string   `json:"kernels"`
	KernelsAvailable []string `json:"kernels_available"`
	CPU              string   `json:"cpu"`
	CPUFeatures      []string `json:"cpu_features"`
	Cores            int      `json:"cores"`
	Threads          int      `json:"threads"`
	Go               string   `json:"go"`
	Arch             string   `json:"arch"`
	// MPI is the MPI library compiled in (-tags mpi), or false.
	MPI any `json:"mpi"`
}

func runInfo(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("info", "[--json] [--blas B] [--simd S] [--threads N]", stdout, stderr)
	var rt runtimeFlags
	rt.register(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	avail := []string{blas.Gonum}
	if blas.HasOpenBLAS() {
		avail = append([]string{blas.OpenBLAS}, avail...)
	}
	var feats []string
	for _, f := range []cpuid.FeatureID{cpuid.AVX, cpuid.AVX2, cpuid.FMA3, cpuid.AVX512F} {
		if cpuid.CPU.Supports(f) {
			feats = append(feats, strings.ToLower(f.String()))
		}
	}
	out := infoOutput{
		BLAS: blas.Name(), BLASAvailable: avail, BLASScope: "process (gonum blas64)",
		Kernels: kernels.Path(), KernelsAvailable: kernels.Available(),
		CPU: strings.TrimSpace(cpuid.CPU.BrandName), CPUFeatures: feats,
		Cores: runtime.NumCPU(), Threads: rt.threadCount(),
		Go: runtime.Version(), Arch: runtime.GOOS + "/" + runtime.GOARCH,
		MPI: false,
	}
	mpiText := "none in this build (-tags mpi with OpenMPI adds it)"
	if mpi.Available {
		out.MPI, mpiText = mpi.Version(), mpi.Version()
	}
	if *asJSON {
		return writeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "blas     %s (available: %s), installed in gonum's blas64 for the whole process\n", out.BLAS, strings.Join(avail, ", "))
	fmt.Fprintf(stdout, "kernels  %s (available: %s)\n", out.Kernels, strings.Join(out.KernelsAvailable, ", "))
	fmt.Fprintf(stdout, "cpu      %s [%s], %d cores\n", out.CPU, strings.Join(feats, " "), out.Cores)
	fmt.Fprintf(stdout, "threads  %d\n", out.Threads)
	fmt.Fprintf(stdout, "go       %s %s\n", out.Go, out.Arch)
	fmt.Fprintf(stdout, "mpi      %s\n", mpiText)
	return nil
}
