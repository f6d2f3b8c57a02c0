#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tidy.sh - clang-tidy with the project's .clang-tidy over the C units the
# build compiles in the directories given (default libslog utils): see
# tests/tidy.py, which does the work (parallel, cached, headers included).
# Kept as the entry point tests/lint.sh and developers call.
#
# Usage: tests/tidy.sh [-j JOBS] [-p BUILD_DIR] [DIR...]
exec python3 "$(dirname "$0")/tidy.py" "$@"
