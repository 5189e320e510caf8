"""The thin-plate SVM against scikit-learn's SVC, as a user calls them
=====================================================================

Prints, in one run:

1. ``ThinPlateSVC().fit`` against ``SVC().fit`` (libsvm, RBF, both with their defaults) on every
   set below as the loader gives it (no scaling by the caller), d = 2 ... 60, up to 7400 points:
   wall seconds (best of 3, the two fits interleaved in one process), their ratio, the CPU-time
   ratio, the route the fit took and its iterations, and — where scikit-learn-intelex is
   installed (a benchmark-only comparison, never a dependency) — the ratio to its SVC (oneDAL);
   the worst ratio over the sets last;
2. model selection on banana, twonorm and german (400 training points per split, the rest
   tested): the thin-plate SVM's 5-fold CV over 8 values of C (with a
   :class:`~sdpkern.native.cpd.CPDMemory`: each fold's kernel columns and factor computed once)
   against SVC's 5-fold 7 C × 6 γ grid: time ratio and test errors over 5 splits;
3. the routes on the same problems (2000 points, C = 1): the dual (SMO core), the reduced
   Newton method and 000 Algorithm 1 reach the same optimum (relative gap) and their times;
4. where the thin-plate fit's work goes, against libsvm's, on the sets of section 1: libsvm's
   SMO steps and support (how much of it at the bound C); the thin-plate dual's SMO steps, its
   support, the kernel columns it computed (those SMO computed ahead in batches and then asked
   for), and the cost of one column of K_Ξ against one of Φ (the same kernel without the
   correction), alone and in batches of 8 (CPU ms a column, best of 3).

Usage::

    python examples/benchmarks/bench_thin_plate.py            # everything
    python examples/benchmarks/bench_thin_plate.py --quick    # docs gallery: small sizes
    python examples/benchmarks/bench_thin_plate.py --only fit # one section (fit, selection, routes, cost)
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from sdpkern.datasets import load_keel
from sdpkern.estimators import ThinPlateSVC
from sdpkern.kernels.cpd import ThinPlate, polynomial_factor
from sdpkern.kernels.gram import KernelGram, PrecomputedGram
from sdpkern.native.cpd import CPDMemory, cpd_dual_svm, cpd_primal_svm, cpd_primal_svm_reduced

#: (set, points used): d = 2 (banana), 8 (pima), 20 (german, twonorm, ringnorm), 30 (wdbc), 60 (splice)
SETS = [("banana", 5300), ("pima", 768), ("german", 1000), ("wdbc", 569), ("twonorm", 7400), ("ringnorm", 7400),
        ("splice", 3190)]  # fmt: skip


def _intelex_svc():  # type: ignore[no-untyped-def]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from sklearnex.svm import SVC as DALSVC
    except ImportError:
        return None
    return DALSVC


def _keel(name: str, n: int | None, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    ds = load_keel(name)
    idx = np.random.default_rng(seed).permutation(ds.y.shape[0])
    return ds.X[idx[:n]], ds.y[idx[:n]]


def _timed(make, X, y, repeats: int):  # type: ignore[no-untyped-def]
    """(best wall seconds, best CPU seconds, the model) of ``make().fit(X, y)``."""
    best_w, best_c, model = np.inf, np.inf, None
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        model = make().fit(X, y)
        best_w, best_c = min(best_w, time.perf_counter() - w0), min(best_c, time.process_time() - c0)
    return best_w, best_c, model


def section_fit(quick: bool) -> None:
    DALSVC = _intelex_svc()
    print("== 1. ThinPlateSVC().fit / SVC().fit, defaults, raw inputs (wall s, best of 3, one process) ==")
    print(f"{'set':>9} {'n':>5} {'d':>3} | {'TP s':>7} {'SVC s':>7} {'ratio':>6} {'CPU ratio':>9} | {'route':>9} "
          f"{'iters':>6} {'SVC it':>6} {'nSV TP':>6} {'nSV SVC':>7} | {'oneDAL s':>8} {'TP/oneDAL':>9}")
    sets = [(name, min(n, 800)) for name, n in SETS] if quick else SETS
    worst, worst_cpu, worst_dal = 0.0, 0.0, 0.0
    for name, n in sets:
        X, y = _keel(name, n)
        repeats = 1 if quick else 3
        t_tp, c_tp, tp = np.inf, np.inf, None
        t_sv, c_sv, sv = np.inf, np.inf, None
        for _ in range(repeats):  # interleaved: the machine's load touches both alike
            a = _timed(ThinPlateSVC, X, y, 1)
            b = _timed(SVC, X, y, 1)
            if a[0] < t_tp:
                t_tp, tp = a[0], a[2]
            if b[0] < t_sv:
                t_sv, sv = b[0], b[2]
            c_tp, c_sv = min(c_tp, a[1]), min(c_sv, b[1])
        ratio, cpu = t_tp / t_sv, c_tp / c_sv
        worst, worst_cpu = max(worst, ratio), max(worst_cpu, cpu)
        dal = ""
        if DALSVC is not None:
            t_d = _timed(DALSVC, X, y, repeats)[0]
            worst_dal = max(worst_dal, t_tp / t_d)
            dal = f"{t_d:>8.3f} {t_tp / t_d:>8.2f}x"
        print(f"{name:>9} {X.shape[0]:>5} {X.shape[1]:>3} | {t_tp:>7.3f} {t_sv:>7.3f} {ratio:>5.2f}x {cpu:>8.2f}x | "
              f"{tp.solver_:>9} {tp.n_iter_:>6} {int(sv.n_iter_[0]):>6} {tp.support_.size:>6} {sv.support_.size:>7} | "
              f"{dal}")  # fmt: skip
    tail = "" if DALSVC is None else f"; / oneDAL SVC: {worst_dal:.2f}x"
    print(f"   worst ThinPlateSVC / SVC: {worst:.2f}x wall, {worst_cpu:.2f}x CPU{tail}")
    if DALSVC is None:
        print("   (scikit-learn-intelex not installed: no oneDAL column)")


def section_selection(quick: bool) -> None:
    print("\n== 2. model selection: thin-plate 5-fold CV over 8 C vs SVC 5-fold 7 C x 6 gamma (400 training points) ==")
    Cs = 10.0 ** np.arange(-3, 5)
    grid = {"C": 10.0 ** np.arange(-1, 6), "gamma": 10.0 ** np.arange(-4, 2)}
    splits = 2 if quick else 5
    print(f"{'set':>9} | {'TP grid s':>9} {'SVC grid s':>10} {'ratio':>6} | {'TP err %':>9} {'SVC err %':>9}")
    for name in ("banana", "twonorm", "german"):
        Xall, yall = _keel(name, None)
        t_tp, t_sv, e_tp, e_sv = [], [], [], []
        for seed in range(splits):
            idx = np.random.default_rng(100 + seed).permutation(yall.shape[0])
            tr, te = idx[:400], idx[400:]
            sc = StandardScaler().fit(Xall[tr])  # (SVC's grid of gamma needs standardised inputs)
            Xtr, Xte = sc.transform(Xall[tr]), sc.transform(Xall[te])
            cv = StratifiedKFold(5, shuffle=True, random_state=seed)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                gs = GridSearchCV(ThinPlateSVC(memory=CPDMemory()), {"C": Cs}, cv=cv).fit(Xtr, yall[tr])
            t_tp.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            gsv = GridSearchCV(SVC(), grid, cv=cv).fit(Xtr, yall[tr])
            t_sv.append(time.perf_counter() - t0)
            e_tp.append(100 * (1 - gs.score(Xte, yall[te])))
            e_sv.append(100 * (1 - gsv.score(Xte, yall[te])))
        r = np.median(t_tp) / np.median(t_sv)
        print(f"{name:>9} | {np.median(t_tp):>9.2f} {np.median(t_sv):>10.2f} {r:>5.2f}x | "
              f"{np.mean(e_tp):>5.2f}±{np.std(e_tp):.2f} {np.mean(e_sv):>5.2f}±{np.std(e_sv):.2f}")  # fmt: skip


def section_routes(quick: bool) -> None:
    print("\n== 3. the routes on one problem (C = 1, inputs / sqrt(d Var X)): CPU s, gap to the dual / max(obj., 1) ==")
    print(f"{'set':>9} {'n':>5} | {'dual s':>7} {'reduced s':>9} {'Alg. 1 s':>8} | "
          f"{'gap reduced':>11} {'gap Alg. 1':>10}")
    kernel = ThinPlate(2, formula_dimension=2)
    for name, n in (("banana", 2000), ("german", 1000), ("twonorm", 2000)):
        X, y = _keel(name, 500 if quick else n)
        X = X / np.sqrt(X.shape[1] * X.var())
        Q = polynomial_factor(X, kernel).Q
        t0 = time.process_time()
        d = cpd_dual_svm(KernelGram(kernel, X), Q, y, 1.0, polish="auto")
        t1 = time.process_time()
        r = cpd_primal_svm_reduced(KernelGram(kernel, X), Q, y, 1.0)
        t2 = time.process_time()
        a = cpd_primal_svm(PrecomputedGram(kernel(X)), Q, y, 1.0)
        t3 = time.process_time()
        # (relative to max(objective, 1): on 𝒫-separable points every optimum is 0)
        scale = max(abs(d.objective), 1.0)
        gr, ga = abs(r.objective - d.objective) / scale, abs(a.objective - d.objective) / scale
        print(f"{name:>9} {X.shape[0]:>5} | {t1 - t0:>7.3f} {t2 - t1:>9.3f} {t3 - t2:>8.3f} | {gr:>11.1e} {ga:>10.1e}")


def _column_ms(gram, cols: np.ndarray, batch: int) -> float:  # type: ignore[no-untyped-def]
    """CPU ms a column of ``gram`` computed into its cache ``batch`` at a time (best of 3)."""
    best = np.inf
    for _ in range(3):
        gram.clear_cache()
        t0 = time.process_time()
        for lo in range(0, cols.size, batch):
            gram.ensure(np.sort(cols[lo : lo + batch]))
        best = min(best, (time.process_time() - t0) / cols.size)
    return 1e3 * best


def section_cost(quick: bool) -> None:
    from sdpkern.native.cpd import CPDWorkspace
    from sdpkern.native.dual_svm import _one_blas_thread

    print("\n== 4. the work: libsvm's SMO against the thin-plate dual's (defaults, the sets of section 1) ==")
    print(f"{'set':>9} {'n':>5} {'d':>3} {'k':>3} | {'SVC steps':>9} {'nSV':>5} {'at C':>5} | {'TP steps':>8} "
          f"{'nSV':>5} {'columns':>7} {'ahead':>11} | {'K_Xi 1':>6} {'K_Xi 8':>6} {'Phi 1':>6} {'Phi 8':>6} "
          "(ms/col)")  # fmt: skip
    sets = [(name, min(n, 800)) for name, n in SETS] if quick else SETS
    for name, n in sets:
        X, y = _keel(name, n)
        sv = SVC().fit(X, y)
        at_c = int(np.sum(np.abs(sv.dual_coef_) >= sv.C * (1 - 1e-9)))
        tp = ThinPlateSVC()
        Xs = X / tp._scale_of(X)
        ypm = np.where(y == np.unique(y)[1], 1.0, -1.0)
        with _one_blas_thread():
            ws = CPDWorkspace(tp._kernel(), Xs)
            Q = ws.factor.Q
            d = cpd_dual_svm(ws.reduced, Q, ypm, 1.0, polish="auto")
            fetched, used = int(d.dual.certificate["columns_ahead"]), int(d.dual.certificate["columns_ahead_used"])
            cols = np.random.default_rng(0).permutation(X.shape[0])[: min(400, X.shape[0])]
            rk, phi = ws.reduced, KernelGram(tp._kernel(), Xs)
            ms = [_column_ms(g, cols, b) for g in (rk, phi) for b in (1, 8)]
        print(f"{name:>9} {X.shape[0]:>5} {X.shape[1]:>3} {Q.shape[1]:>3} | {int(sv.n_iter_[0]):>9} "
              f"{sv.support_.size:>5} {at_c:>5} | {d.n_iter:>8} {np.count_nonzero(d.dual.alpha):>5} "
              f"{int(d.dual.certificate['columns']):>7} "
              f"{used:>5}/{fetched:<5} | {ms[0]:>6.3f} {ms[1]:>6.3f} {ms[2]:>6.3f} {ms[3]:>6.3f}")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=["fit", "selection", "routes", "cost"], default=None)
    args = parser.parse_args(argv)
    sections = (("fit", section_fit), ("selection", section_selection), ("routes", section_routes),
                ("cost", section_cost))  # fmt: skip
    for name, section in sections:
        if args.only in (None, name):
            section(args.quick)


if __name__ == "__main__":
    main(sys.argv[1:])
