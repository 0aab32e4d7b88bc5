#!/usr/bin/env bash
# Time to objective against scikit-learn (bench/timeto.py) with a Python
# that has scikit-learn, after building bin/manifactor. Arguments go to
# timeto.py, e.g. bench/timeto.sh --k 100 --sk-init random.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build >/dev/null
for py in /usr/bin/python3 python3; do
	if command -v "$py" >/dev/null && "$py" -c 'import sklearn, scipy' 2>/dev/null; then
		exec "$py" bench/timeto.py "$@"
	fi
done
echo "no Python with scikit-learn found: apt-get install python3-sklearn" >&2
exit 1
