#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run_pytest.sh PYTHON BUILD_PYDIR SOURCE_ROOT - runs tests/python with the
# slog package of the build tree on PYTHONPATH (meson test, suite 'python').
# pytest missing is a skip (77), not a pass.
set -eu
python=$1
export PYTHONPATH="$2${PYTHONPATH:+:$PYTHONPATH}"
export SLOG_SOURCE_ROOT="$3"
"$python" -c "import pytest" 2>/dev/null || { echo "pytest not installed: skipped"; exit 77; }
cd "$3/tests/python"
exec "$python" -m pytest -q -p no:cacheprovider "$3/tests/python"
