"""The builder's default solve against the estimator: same route, same time
========================================================================

``csvm(X, y).solve()`` solves the hyperkernel C-SVM's SOCP (002 eq. 3.8) by cone generation
(``method="auto"``: restricted problems over a growing set of basis terms, certified for the
whole SOCP), the route ``HyperkernelSVC`` takes; ``method="direct"`` writes and solves all the
cones at once. On ``--m`` standardised breast-cancer points, each timed ``--repeat`` times in
this process (median), prints the builder's time (build + solve) and objective, the
estimator's (``HyperkernelSVC(hyperkernel=HarmonicARD())``, the builder's hyperkernel), the ratio
builder / estimator (about 1 when the builder takes the estimator's route), and the direct solve's time for reference.

Usage::

    python examples/benchmarks/bench_builder_route.py               # m = 60, 3 repeats, with the direct solve
    python examples/benchmarks/bench_builder_route.py --no-direct   # without it
    python examples/benchmarks/bench_builder_route.py --quick       # m = 30, 1 repeat (docs gallery)
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from sdpkern.builders.hyperkernel import csvm
from sdpkern.estimators import HyperkernelSVC
from sdpkern.kernels import HarmonicARD


def timed(run: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Median wall time of ``repeat`` calls, and the last call's result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(argv: list[str] | None = None) -> None:
    """Parse the command line, time the three routes and print the table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--m", type=int, default=60, help="training points (default 60)")
    ap.add_argument("--repeat", type=int, default=3, help="timings per route, median reported (default 3)")
    ap.add_argument("--no-direct", action="store_true", help="skip the direct solve of the whole SOCP")
    ap.add_argument("--quick", action="store_true", help="m = 30, one repeat")
    args = ap.parse_args(argv)
    m, repeat = (30, 1) if args.quick else (args.m, args.repeat)
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[:m]
    y = y[:m]

    t_builder, sol = timed(lambda: csvm(X, y).solve(), repeat)
    t_est, clf = timed(lambda: HyperkernelSVC(hyperkernel=HarmonicARD()).fit(X, y), repeat)
    print(f"m = {m}, median of {repeat} run(s)")
    print(f"{'route':<44} {'status':<10} {'objective':>12} {'seconds':>8}")
    print(f"{'csvm(X, y).solve()  [' + sol.method + ']':<44} {sol.status:<10} {sol.objective:>12.6f} {t_builder:>8.2f}")
    label = "HyperkernelSVC(hyperkernel=HarmonicARD()).fit"
    print(f"{label:<44} {clf.status_:<10} {clf.objective_:>12.6f} {t_est:>8.2f}")
    if not args.no_direct:
        problem = csvm(X, y)
        t_direct, direct = timed(lambda: problem.solve(method="direct"), 1)
        print(f"{'csvm(X, y).solve(method=direct) [solve only]':<44} {direct.status:<10} "
              f"{direct.objective:>12.6f} {t_direct:>8.2f}")  # fmt: skip
        print(f"relative objective difference, default vs direct: "
              f"{abs(sol.objective - direct.objective) / abs(direct.objective):.1e}")  # fmt: skip
    print(f"ratio builder / estimator: {t_builder / t_est:.2f}")
    assert np.isfinite(sol.objective)


if __name__ == "__main__":
    main()
