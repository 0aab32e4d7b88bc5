package mpi

import "os"

// launched reports whether an MPI launcher started this process: OpenMPI's
// mpirun, MPICH's Hydra and Slurm's srun each set a rank variable.
func launched() bool {
	for _, v := range []string{"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"} {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}
