#!/usr/bin/env bash
# Runs bench/compare.py with a Python that has scikit-learn (Debian's
# python3-sklearn installs it for /usr/bin/python3).
set -euo pipefail
cd "$(dirname "$0")/.."
for py in /usr/bin/python3 python3; do
	if command -v "$py" >/dev/null && "$py" -c 'import sklearn, scipy' 2>/dev/null; then
		exec "$py" bench/compare.py "$@"
	fi
done
echo "no Python with scikit-learn found: apt-get install python3-sklearn" >&2
exit 1
