#!/usr/bin/env bash
# Time to objective against scikit-learn (bench/timeto.py) with a Python
# that has scikit-learn, after building bin/manifactor. Arguments go to
# timeto.py, e.g. bench/timeto.sh --k 100 --sk-init random.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build >/dev/null
. bench/python.sh
exec_sklearn bench/timeto.py "$@"
