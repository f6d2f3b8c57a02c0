# SPDX-License-Identifier: MIT
"""Run an MPI program under `mpirun -np N slog-trace -o DIR -- PROGRAM ARGS`
for the slog-trace MPI tests (trace_mpi_test.py, trace_mpiio_test.py)."""
import os
import shutil
import subprocess


def mpirun_available(program):
    """True when mpirun and the test program are both here."""
    return shutil.which("mpirun") is not None and program != "none" and os.path.exists(program)


def mpirun_traced(slog_trace, out, ranks, program, *args):
    """The finished mpirun (capture_output, text) of slog-trace over program."""
    env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    # ASan build: the runtime goes first in the ranks only (Open MPI's
    # own allocations at exit are not the tracer's: no leak check there)
    preload = os.environ.get("SLOG_TRACE_TEST_PRELOAD", "")
    asan = ["-x", f"LD_PRELOAD={preload}", "-x",
            "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1"] if preload else []
    return subprocess.run([shutil.which("mpirun"), "--allow-run-as-root", "--oversubscribe",
                           "-np", str(ranks), *asan, slog_trace, "-o", out, "--", program, *args],
                          capture_output=True, text=True, timeout=240, env=env)
