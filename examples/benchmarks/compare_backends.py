"""Every installed backend against Clarabel on the instance library
================================================================

Solves instances of the shipped library (``sdpkern list``) in one form each (SDP, SOCP, c.p.d.
QP) with every backend sdpkern maps (``sdpkern.backends``: Clarabel, SCS, CVXOPT, SDPA, PIQP,
OSQP, HiGHS, ECOS, MOSEK, whichever are installed; ``pip install 'sdpkern[solvers]'`` brings the
PyPI ones) and prints, per backend, the status and the distance of its optimum from Clarabel's
(relative to max(1, abs(Clarabel's optimum))), or the typed error it gave: a backend without the
cones of a form is refused before any solve (``BackendError``). Answers that are not
``"optimal"`` are accepted here with ``allow_inaccurate=True`` to show how far they are, with
their status as the solver gave it.

``python examples/benchmarks/compare_backends.py`` (a minute); ``--instances NAME ...`` to choose.
"""

from __future__ import annotations

import argparse
import time
import warnings

from sdpkern.apps.instances import load
from sdpkern.backends import BACKENDS, available_backends
from sdpkern.errors import SdpkernError

INSTANCES = ["hk_csvm_sdp_m20", "sdpm_deg2_sdp", "hk_csvm_socp_m10", "sdpm_deg2", "cpd_hinge_dual",
             "cpd_squared_hinge", "cpd_hinge_primal"]  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    """Print one row per instance and backend."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", nargs="*", default=INSTANCES)
    args = ap.parse_args(argv)
    backends = [b for b in available_backends() if b in BACKENDS]
    print(f"{'instance':<22} {'form':<5} {'backend':<9} {'status':<19} {'rel. to clarabel':>16} {'time [s]':>9}")
    worst: dict[str, float] = {}
    for name in args.instances:
        problem, _ = load(name)
        ref = problem.solve("clarabel", method="direct").objective
        for b in backends:
            problem, _ = load(name)
            t0 = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    sol = problem.solve(b, method="direct", allow_inaccurate=True)
            except SdpkernError as exc:
                print(f"{name:<22} {problem.form:<5} {b:<9} {type(exc).__name__}")
                continue
            rel = abs(sol.objective - ref) / max(1.0, abs(ref))
            worst[b] = max(worst.get(b, 0.0), rel)
            print(f"{name:<22} {problem.form:<5} {b:<9} {sol.status:<19} {rel:>16.1e} {time.perf_counter() - t0:>9.2f}")
    print("\nworst distance from Clarabel per backend: " + ", ".join(f"{b} {v:.1e}" for b, v in worst.items()))


if __name__ == "__main__":
    main()
