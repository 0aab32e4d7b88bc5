# manifactor build. `make demo` and `make test` are all a newcomer needs.
#
# OpenBLAS is used when the system has it (pkg-config, or a test link of
# -lopenblas); otherwise everything builds with gonum's pure-Go BLAS.

GO      ?= go
CC      ?= cc
BIN     := bin/manifactor
HAVE_OPENBLAS := $(shell (pkg-config --exists openblas 2>/dev/null || \
	printf 'void openblas_set_num_threads(int);int main(void){openblas_set_num_threads(1);return 0;}' | \
	$(CC) -x c - -lopenblas -o /dev/null 2>/dev/null) && echo yes)
# MPI (OpenMPI's pkg-config module) adds the distributed mode's binding.
HAVE_MPI := $(shell pkg-config --exists ompi-c 2>/dev/null && command -v mpirun >/dev/null && echo yes)
TAGS    := $(strip $(if $(HAVE_OPENBLAS),openblas,) $(if $(HAVE_MPI),mpi,))
# Packages that start goroutines, for the race detector.
RACE_PKGS := ./internal/... ./dist/... ./sparse/... ./graph/... ./solver/... ./cluster/... ./model/... ./experiment/... ./cmd/...

.PHONY: all build demo docs test test-full vet fmt-check generate-check bench fuzz clean

all: build

build:
	$(GO) build -tags '$(TAGS)' -o $(BIN) ./cmd/manifactor
	@echo "built $(BIN) with BLAS: $(if $(HAVE_OPENBLAS),openblas,gonum (pure Go; install libopenblas-dev for OpenBLAS)); MPI: $(if $(HAVE_MPI),yes,no (install openmpi-bin libopenmpi-dev for it))"

demo: build
	./$(BIN) demo

# The command-line reference, generated from the flags (TestCLIReference
# fails when it is stale).
docs:
	$(GO) run ./cmd/manifactor help reference > docs/cli.md

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi

vet:
	$(GO) vet ./...
	cd internal/asm/_gen && $(GO) vet ./...
	$(GO) vet -tags noasm ./internal/asm/...
ifneq ($(TAGS),)
	$(GO) vet -tags '$(TAGS)' ./...
endif

# The assembly in internal/asm is generated (its _gen, avo): regenerating it
# must leave the .s files as committed, with none added.
generate-check:
	$(GO) generate ./internal/asm/
	@if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		echo "not a git checkout: the regenerated assembly is not compared"; exit 0; fi; \
	git diff --exit-code -- 'internal/asm/*_amd64.s' || { echo "go generate ./internal/asm/ changed the assembly: edit internal/asm/_gen, not the .s files"; exit 1; }; \
	out=$$(git ls-files --others --exclude-standard -- 'internal/asm/*.s'); \
	if [ -n "$$out" ]; then echo "go generate ./internal/asm/ left untracked files: $$out"; exit 1; fi

# The suite as a newcomer runs it: default (pure-Go BLAS, assembly
# kernels) in full, real corpora included; then with -short (every
# package's own tests, not the long checks on the real corpora) OpenBLAS
# when present; and the MPI binding's, dist's and fit --distributed's
# tests under MPI. test-full runs the other variants (OpenBLAS in full,
# generic kernels forced at run time, the assembly left out at build
# time, the race detector); CI runs both. The generic and no-assembly
# runs moved there, and the race run with them, when make test passed
# five minutes on 2 cores against the goal of four.
test: fmt-check vet generate-check
	$(GO) test -count=1 ./...
ifneq ($(HAVE_OPENBLAS),)
	$(GO) test -count=1 -short -tags openblas ./...
else
	@echo "OpenBLAS not found: skipping the -tags openblas run"
endif
ifneq ($(HAVE_MPI),)
	$(GO) test -count=1 -tags '$(TAGS)' ./dist/...
	$(GO) test -count=1 -short -tags '$(TAGS)' -run Distributed ./cmd/manifactor/
else
	@echo "MPI not found: skipping the -tags mpi run (install openmpi-bin libopenmpi-dev)"
endif

# The variants of test in full: the long checks on the real corpora on
# OpenBLAS, under MPI, with the generic kernels and without assembly; and
# the race detector on the packages that run goroutines.
test-full:
ifneq ($(HAVE_OPENBLAS),)
	$(GO) test -count=1 -tags openblas ./...
endif
ifneq ($(HAVE_MPI),)
	$(GO) test -count=1 -tags '$(TAGS)' -run Distributed ./cmd/manifactor/
endif
	MANIFACTOR_KERNELS=generic $(GO) test -count=1 ./...
	$(GO) test -count=1 -tags noasm ./...
	$(GO) test -count=1 -race -short -tags '$(TAGS)' $(RACE_PKGS)

# Go benchmarks of the hot paths, then the side-by-side run against
# scikit-learn recorded in docs/PERFORMANCE.md.
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 2x -tags '$(TAGS)' ./internal/asm/ ./sparse/ ./solver/
	bench/compare.sh

# Each reader's fuzz target for FUZZTIME (default 60s), one at a time.
FUZZTIME ?= 60s
FUZZ_TARGETS := FuzzReadMAT FuzzReadMatrixMarket FuzzReadSVMLight FuzzReadCSV FuzzReadParts \
	FuzzReadReuters FuzzTokenize FuzzVectorize FuzzLoadTextDir
MATRIXIO_FUZZ_TARGETS := FuzzReadNPY FuzzMTXParts
MODEL_FUZZ_TARGETS := FuzzLoad FuzzParseManifest FuzzReadFeatures
fuzz:
	for t in $(MATRIXIO_FUZZ_TARGETS); do \
		$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) ./internal/matrixio/ || exit 1; \
	done
	for t in $(FUZZ_TARGETS); do \
		$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) ./dataset/ || exit 1; \
	done
	for t in $(MODEL_FUZZ_TARGETS); do \
		$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) ./model/ || exit 1; \
	done

clean:
	rm -rf bin
