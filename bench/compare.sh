#!/usr/bin/env bash
# Runs bench/compare.py with a Python that has scikit-learn (Debian's
# python3-sklearn installs it for /usr/bin/python3).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/python.sh
exec_sklearn bench/compare.py "$@"
