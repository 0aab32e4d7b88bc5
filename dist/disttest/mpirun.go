package disttest

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
)

// MPIRun returns the MPI launcher and the arguments that start np ranks
// on this machine whatever its core count (and as root, as CI runs), to
// be followed by the program and its arguments, or an error naming the
// package to install when there is no launcher.
func MPIRun(np int) (path string, args []string, err error) {
	path, err = exec.LookPath("mpirun")
	if err != nil {
		return "", nil, errors.New("mpirun not found: install OpenMPI (Debian: openmpi-bin libopenmpi-dev)")
	}
	args = []string{"--oversubscribe", "-np", strconv.Itoa(np)}
	if os.Getuid() == 0 {
		args = append(args, "--allow-run-as-root")
	}
	return path, args, nil
}

// MPIEnv is the environment the ranks need besides the caller's: vader's
// single-copy transfers need ptrace rights that containers often lack,
// and copying through shared memory works everywhere.
var MPIEnv = []string{"OMPI_MCA_btl_vader_single_copy_mechanism=none"}
