"""The hyperkernel C-SVM at the thesis' scale (002 §3.2): speed figures in one run.
================================================================================

1. m = 100 breast-cancer points, η = 1e-4: the same-basis SDP (002 eq. 3.8), the full SOCP (exact
   and with the shared factor cut at factor_tol = 1e-6) and
   the SOCP by constraint generation (``csvm_active_set``); times, ratios to the SDP, optima.
2. m = 300 (a pima training split): ``HyperkernelSVC().fit`` with the defaults.
3. The pima 60 % split (460 points), over ``--splits`` random splits: ``HyperkernelSVC().fit``
   against the thesis-style ``GridSearchCV`` of an RBF SVC over (C, σ) with 10-fold CV
   (002 Table 3.1's last column); fit times, their ratio and the test errors (mean ± std).

Peak traced memory (tracemalloc) is printed for each fit, the process' peak RSS at the end.
Inputs are standardised. Run::

    python examples/benchmarks/bench_hyperkernel_scale.py [--splits 5] [--skip-sdp]

Parts 1-2 take about 3 minutes with the SDP on two cores (``--skip-sdp``: about one); part 3 is
dominated by the grid search (12 C values up to 1e9 × 5 σ × 10 folds): about 7 minutes per split
measured on the loaded 2-core machine, so ``--splits 1`` for a quick look.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from sdpkern.builders.hyperkernel import csvm, csvm_active_set, make_basis
from sdpkern.datasets import load_keel
from sdpkern.estimators import HyperkernelSVC
from sdpkern.kernels.hyperkernels import HarmonicARD

# the thesis-style grid search lives with the table reproductions (sys.argv[0] is this file, also
# in the docs gallery, which defines no __file__)
sys.path.insert(0, str(Path(sys.argv[0]).resolve().parent.parent / "reproductions"))
from reproduce_hyperkernel_tables import ThesisTunedSVC  # noqa: E402


def measured(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, seconds, peak MiB traced) of one call."""
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, seconds, peak


def part1(skip_sdp: bool, m: int = 100) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(0).permutation(y.shape[0])[:m]
    X, y = StandardScaler().fit_transform(X[idx]), y[idx]
    hk = HarmonicARD(0.6, "auto").fitted(X, random_state=0)
    B = make_basis(X, hk, None, 1e-4, None)
    print(f"1. hyperkernel C-SVM, m = {m} breast cancer, η = 1e-4: p = {B.size} basis terms")
    full, t_full, mem_full = measured(lambda: csvm(X, y, hk, basis=B).solve())
    (_, act, trace), t_act, mem_act = measured(lambda: csvm_active_set(X, y, hk, basis=B))
    # the shared factor cut at 1e-6·λ_max (an approximation, see sdpkern.builders.hyperkernel.shared_factor)
    trunc, t_trunc, mem_trunc = measured(lambda: csvm(X, y, hk, basis=B, factor_tol=1e-6).solve())
    rows = [
        ("SOCP, constraint generation", t_act, mem_act, act.objective),
        ("SOCP, all cones, tol 1e-6", t_trunc, mem_trunc, trunc.objective),
        ("SOCP, all cones", t_full, mem_full, full.objective),
    ]
    if not skip_sdp:
        sdp, t_sdp, mem_sdp = measured(lambda: csvm(X, y, hk, basis=B, form="sdp").solve())
        rows.append(("SDP (002 eq. 3.8)", t_sdp, mem_sdp, sdp.objective))
    ref = rows[-1]
    print(
        f"   {'form':<28}{'time s':>9}{'vs ' + ('SDP' if not skip_sdp else 'full'):>10}"
        f"{'peak MiB':>10}{'objective':>16}"
    )
    for name, t, mem, obj in rows:
        print(f"   {name:<28}{t:9.2f}{ref[1] / t:9.1f}×{mem:10.1f}{obj:16.8f}")
    rel = max(abs(r[3] - ref[3]) / abs(ref[3]) for r in rows)
    print(
        f"   optima agree to {rel:.1e} relative; generation: {trace.rounds} round(s), "
        f"{trace.terms.size} of {B.size} cones"
    )


def _pima_split(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    ds = load_keel("pima")
    X_tr, X_te, y_tr, y_te = train_test_split(ds.X, ds.y, train_size=0.6, stratify=ds.y, random_state=seed)
    scaler = StandardScaler().fit(X_tr)
    return scaler.transform(X_tr), scaler.transform(X_te), y_tr, y_te


def part2(m: int = 300) -> None:
    X_tr, _, y_tr, _ = _pima_split(0)
    X, y = X_tr[:m], y_tr[:m]
    est, t, mem = measured(lambda: HyperkernelSVC().fit(X, y))
    print(f"\n2. HyperkernelSVC().fit on {m} pima points: {t:.1f} s (target ≤ 30 s), peak {mem:.1f} MiB, "
          f"{est.n_terms_} basis terms, {len(est.active_terms_)} cones in the final SOCP")  # fmt: skip


def part3(splits: int) -> None:
    print(f"\n3. pima 60/40 splits (460 training points), {splits} split(s)")
    print(
        f"   {'split':<6}{'hyperkernel s':>14}{'err %':>8}{'MiB':>8}"
        f"{'GridSearchCV s':>16}{'err %':>8}{'MiB':>8}{'ratio':>8}"
    )
    errs_h, errs_g, ratios = [], [], []
    for seed in range(splits):
        X_tr, X_te, y_tr, y_te = _pima_split(seed)
        hk, t_h, mem_h = measured(lambda X=X_tr, y=y_tr: HyperkernelSVC().fit(X, y))  # type: ignore[misc]
        gs, t_g, mem_g = measured(lambda X=X_tr, y=y_tr: ThesisTunedSVC().fit(X, y))  # type: ignore[misc]
        e_h, e_g = 100 * (1 - hk.score(X_te, y_te)), 100 * (1 - gs.score(X_te, y_te))
        errs_h.append(e_h)
        errs_g.append(e_g)
        ratios.append(t_h / t_g)
        print(f"   {seed:<6}{t_h:14.1f}{e_h:8.1f}{mem_h:8.0f}{t_g:16.1f}{e_g:8.1f}{mem_g:8.0f}{t_h / t_g:8.2f}")
    sd_h = float(np.std(errs_h, ddof=1)) if splits > 1 else 0.0
    sd_g = float(np.std(errs_g, ddof=1)) if splits > 1 else 0.0
    print(f"   hyperkernel {np.mean(errs_h):.1f} ± {sd_h:.1f} %, GridSearchCV {np.mean(errs_g):.1f} ± {sd_g:.1f} %; "
          f"fit-time ratio hyperkernel / GridSearchCV: median {np.median(ratios):.2f}")  # fmt: skip
    worse = np.mean(errs_h) - np.mean(errs_g)
    print(f"   hyperkernel error {'within' if worse <= sd_g else 'MORE than'} one GridSearchCV std above it "
          f"({worse:+.1f} points vs std {sd_g:.1f})")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--splits", type=int, default=5, help="pima splits in part 3")
    ap.add_argument("--skip-sdp", action="store_true", help="leave out the (slow) SDP in part 1")
    ap.add_argument("--quick", action="store_true", help="seconds: m = 40 without the SDP, 80 points, no part 3")
    args = ap.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        part1(args.skip_sdp or args.quick, 40 if args.quick else 100)
        part2(80 if args.quick else 300)
        if not args.quick:
            part3(args.splits)
    # tracemalloc sees Python/NumPy allocations only (not libsvm's or Clarabel's): add the OS figure
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak resident set size of the whole run: {rss:.0f} MiB")


if __name__ == "__main__":
    main()
