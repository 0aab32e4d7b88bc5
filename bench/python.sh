# The Python the bench scripts drive scikit-learn with, sourced by
# compare.sh, timeto.sh and scale.sh: sklearn_python prints the first of
# Debian's /usr/bin/python3 (where python3-sklearn installs) and the
# python3 on PATH that imports scikit-learn and SciPy, or nothing;
# exec_sklearn SCRIPT ARGS... runs SCRIPT with it, or fails saying what
# to install.
# shellcheck shell=bash
sklearn_python() {
	local c
	for c in /usr/bin/python3 python3; do
		if command -v "$c" >/dev/null && "$c" -c 'import sklearn, scipy' 2>/dev/null; then
			echo "$c"
			return
		fi
	done
}

exec_sklearn() {
	local py
	py=$(sklearn_python)
	if [ -z "$py" ]; then
		echo "no Python with scikit-learn found: apt-get install python3-sklearn" >&2
		exit 1
	fi
	exec "$py" "$@"
}
