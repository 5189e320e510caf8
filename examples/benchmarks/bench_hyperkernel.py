"""Benchmark the hyperkernel C-SVM (002 eq. 3.8): SOCP against the same-basis SDP, and DPP re-solves.
==================================================================================================

Prints, for m breast-cancer points (default 100) and the low-rank basis at η (default 1e-4):
the SOCP time, the SDP time and their ratio with the default backend; peak memory (Python
allocations by tracemalloc, and the process' peak RSS) beside the size the m²×m² hyperkernel
matrix would have; and the first and second solve times when C and λ_Q change between solves.

    python examples/benchmarks/bench_hyperkernel.py [--m 100] [--eta 1e-4] [--backend clarabel]
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np
from sklearn.datasets import load_breast_cancer

from sdpkern.builders.hyperkernel import csvm
from sdpkern.kernels.hyperkernels import HarmonicARD
from sdpkern.kernels.lowrank import hyperkernel_basis


def timed_solve(X, y, hk, basis, form, backend):
    t0 = time.perf_counter()
    problem = csvm(X, y, hk, form=form, basis=basis)
    sol = problem.solve(backend=backend, allow_inaccurate=True)
    return time.perf_counter() - t0, sol, problem


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    ap.add_argument("--m", type=int, default=100)
    ap.add_argument("--eta", type=float, default=1e-4)
    ap.add_argument("--backend", default="clarabel")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(args.seed).choice(X.shape[0], size=args.m, replace=False)
    X, y = X[idx], y[idx]
    hk = HarmonicARD(0.6).fitted(X)

    tracemalloc.start()
    t0 = time.perf_counter()
    basis = hyperkernel_basis(hk, X, eta=args.eta)
    basis.kernels()
    t_basis = time.perf_counter() - t0
    t_socp, socp, problem = timed_solve(X, y, hk, basis, "socp", args.backend)
    _, peak_socp = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_socp = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"m = {args.m}, η = {args.eta:g}: p = {basis.size} basis terms (basis {t_basis:.2f}s), backend {args.backend}"
    )
    print(f"SOCP  build+solve {t_socp:8.2f}s  status {socp.status:<18} objective {socp.objective:.8f}")
    t_sdp, sdp, _ = timed_solve(X, y, hk, basis, "sdp", args.backend)
    print(f"SDP   build+solve {t_sdp:8.2f}s  status {sdp.status:<18} objective {sdp.objective:.8f}")
    rel = abs(socp.objective - sdp.objective) / max(1.0, abs(sdp.objective))
    print(
        f"ratio SDP/SOCP time = {t_sdp / t_socp:.1f}x   (target >= 5)   objectives agree to {rel:.1e} relative,"
        f" β to {np.abs(socp.beta - sdp.beta).sum():.1e} in l1"
    )
    full_bytes = (args.m**2) ** 2 * 8
    print(
        f"peak memory (SOCP path): Python allocations {peak_socp / 2**20:.1f} MiB, process RSS {rss_socp:.0f} MiB;"
        f" the m²×m² hyperkernel matrix alone would take {full_bytes / 2**20:.0f} MiB (never formed)"
    )

    # DPP: changing C and λ_Q reuses the compiled problem
    t1 = time.perf_counter()
    problem.set(C=10.0, lambda_Q=0.5)
    again = problem.solve(backend=args.backend, allow_inaccurate=True)
    t_second = time.perf_counter() - t1
    print(
        f"re-solve after set(C=10, lambda_Q=0.5): first solve {socp.total_time:.2f}s "
        f"(compile {socp.compile_time:.2f}s), second {t_second:.2f}s (compile {again.compile_time:.2f}s)"
    )


if __name__ == "__main__":
    main()
