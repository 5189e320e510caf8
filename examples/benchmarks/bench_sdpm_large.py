"""SDPMs at 10⁴ trajectories: the native solver's fit time, memory and growth; digits one-vs-rest.
=================================================================================================

Two parts, one run.

**Synthetic trajectories.** m = 1,000, 5,000 and 10,000 trajectories in d = 64 dimensions:
two overlapping Gaussian classes (means 0.6 apart in four coordinates), each point moved by
exp(θA) for a random skew-symmetric A (a rotation of ℝ⁶⁴), its Taylor rows of degree r = 2 and
4 (003 eq. 2); on the whole line the top row also bends towards the point's own class (else
only w = 0 keeps every leading coefficient non-negative). Each configuration — r ∈ {2, 4},
θ ∈ ℝ or [−0.35, 0.35] — is fitted once by :func:`sdpkern.native.sdpm.sdpm_native` (C = 1,
the default tol) in a fresh process, and the table gives its wall and CPU time, the peak of
the memory it allocated (``tracemalloc``) and the process's peak resident memory, the
interior-point iterations, the status and the certified relative duality gap. Then the growth
exponent of the CPU time: the slope of log t against log m from 1k to 10k, and the least
squares slope over the three sizes. The conic route (the CVXPY builder solved by Clarabel, the
issue's "about m²") is timed beside it on the same r = 2 segment instances up to ``--conic-max``;
with ``--exchange``, so is the other route the issue suggested, an exchange method on the
semi-infinite form (rounds, virtual points and the certified gap by round; its restricted
problems solved by Clarabel here, so its time is not a native one).

**Digits, one-vs-rest.** scikit-learn's 8×8 digits, all ten classes, an 80/20 stratified split
(every training image: 1437); rotation trajectories of degree 2 on the segment ±``--segment``
degrees (003 §4). ``SDPMClassifier`` with C chosen by 3-fold cross-validation on the training
images (the fit of the chosen C on all of them is timed in a fresh process: time and peak
memory), beside a linear SVC (one-vs-rest, C by the same cross-validation), an RBF SVC (C, γ by
3-fold cross-validation) and the virtual SVM of 003 §4 (for each one-vs-rest model, the linear
SVC's support vectors plus their rotations by ±``--segment`` degrees in the quadratic
approximation, refitted). Test error on the held-out images and, with ``--rotate-test``, on the
same images rotated by a random angle in ±``--segment`` degrees (bilinear, independent of the
SDPM's smoothing), with every method's fit time.

Usage::

    python examples/benchmarks/bench_sdpm_large.py                  # both parts (a few minutes)
    python examples/benchmarks/bench_sdpm_large.py --rotate-test    # digits also on rotated test images
    python examples/benchmarks/bench_sdpm_large.py --skip-digits --sizes 300,1000 --exchange   # the exchange route too
    python examples/benchmarks/bench_sdpm_large.py --skip-digits --sizes 1000,10000
    python examples/benchmarks/bench_sdpm_large.py --quick          # m = 300, 600; digits on 300 images (docs gallery)
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import time
import tracemalloc
import warnings
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

D = 64
SEGMENT = 0.35


def synthetic(m: int, r: int, line: bool, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Taylor rows (m, r + 1, 64) of exp(θA)x for overlapping classes (module docstring)."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    mean = np.zeros(D)
    mean[:4] = 0.6
    X = rng.normal(size=(m, D)) + y[:, None] * mean
    G = rng.normal(size=(D, D)) / np.sqrt(D)
    A = 0.5 * (G - G.T)
    rows, P = [X], X
    for j in range(1, r + 1):
        P = P @ A.T / j
        rows.append(P)
    V = np.stack(rows, axis=1)
    if line:
        V[:, r, :4] += 0.3 * y[:, None]
    return V, y


def measured(func: Any, *args: Any) -> tuple[Any, dict[str, float]]:
    """func(*args) with its wall and CPU time, its peak allocation and the process's peak RSS."""
    tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    out = func(*args)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return out, {"wall": wall, "cpu": cpu, "alloc": float(peak), "rss": float(rss)}


def fit_native(args: tuple[int, int, bool]) -> dict[str, Any]:
    from sdpkern.native.sdpm import sdpm_native

    m, r, line = args
    V, y = synthetic(m, r, line)
    res, stats = measured(lambda: sdpm_native(V, y, C=1.0, segment=None if line else SEGMENT))
    return {**stats, "status": res.status, "gap": res.gap, "iterations": res.iterations, "support": res.support.size}


def fit_conic(m: int) -> dict[str, Any]:
    from sdpkern.builders.sdpm import sdpm

    V, y = synthetic(m, 2, False)
    sol, stats = measured(lambda: sdpm(V, y, C=1.0, segment=SEGMENT).solve())
    return {**stats, "status": sol.status, "objective": sol.objective}


def exchange_rounds(m: int, tol: float = 1e-8, max_rounds: int = 40) -> list[tuple[int, float, float]]:
    """The exchange method the issue suggested, for comparison (r = 2 segment, C = 1): each round
    solves the restricted problem — every trajectory's margin required at its finitely many
    virtual points θ_ik only, one slack per trajectory — here by Clarabel through CVXPY, then adds,
    for each trajectory whose least margin over the segment (exact) falls below the restricted
    one, the θ of that least margin. The restricted optimum is a lower bound; w and b with the
    exact least slacks an upper bound. Returns (virtual points, gap, seconds) per round."""
    import cvxpy as cp

    from sdpkern.native.sdpm import margin_floor, moment_cone

    V, y = synthetic(m, 2, False)
    Vs = V * (SEGMENT ** np.arange(3))[None, :, None]  # θ = SEGMENT·u, u ∈ [−1, 1]
    cone, points, out, t0 = moment_cone(2, True), [[0.0] for _ in range(m)], [], time.perf_counter()
    for _ in range(max_rounds):
        owner = np.repeat(np.arange(m), [len(p) for p in points])
        U = np.array([u for p in points for u in p])
        Z = np.einsum("kj,kjn->kn", U[:, None] ** np.arange(3), Vs[owner])
        w, b, xi = cp.Variable(D), cp.Variable(), cp.Variable(m, nonneg=True)
        margins = cp.multiply(y[owner], Z @ w + b)
        lower = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + cp.sum(xi)), [margins >= 1 - xi[owner]])
        lower.solve(solver="CLARABEL")
        wv, bv = np.asarray(w.value), float(b.value)
        floor, argmin = margin_floor(cone, y[:, None] * (Vs @ wv))
        slack = np.maximum(0.0, 1.0 - y * bv - floor)
        upper = 0.5 * float(wv @ wv) + float(slack.sum())
        out.append((len(U), (upper - float(lower.value)) / upper, time.perf_counter() - t0))
        if out[-1][1] <= tol:
            break
        restricted = np.full(m, np.inf)
        np.minimum.at(restricted, owner, y[owner] * (Z @ wv))
        for i in np.flatnonzero(floor < restricted - 1e-12):
            points[i].append(float(argmin[i]))
    return out


def in_child(func: Any, args: Any, fresh: bool) -> Any:
    """``func(args)`` in a fresh spawned process (its peak RSS is its own), or here (``--quick``:
    the docs gallery runs this file with a ``__main__`` spawned workers cannot import)."""
    if not fresh:
        return func(args)
    # an executor, not a Pool: a worker killed by a signal raises BrokenProcessPool here, where
    # Pool.apply would wait for it forever
    with ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as pool:
        return pool.submit(func, args).result()


def growth(sizes: list[int], times: list[float]) -> tuple[float, float]:
    """The slope of log t against log m between the first and the last size, and by least squares."""
    lm, lt = np.log(sizes), np.log(times)
    return float((lt[-1] - lt[0]) / (lm[-1] - lm[0])), float(np.polyfit(lm, lt, 1)[0])


def synthetic_part(sizes: list[int], conic_max: int, fresh: bool, exchange: bool) -> None:
    print(f"Synthetic trajectories, d = {D}, C = 1, native solver (tol 1e-8); segment = ±{SEGMENT}")
    print(f"{'config':>12} {'m':>6} {'wall s':>7} {'cpu s':>7} {'alloc MB':>9} {'rss MB':>7} {'iter':>5} "
          f"{'status':>9} {'gap':>8} {'support':>8}")  # fmt: skip
    for r in (2, 4):
        for line in (False, True):
            name = f"r={r} {'line' if line else 'segment'}"
            cpu = []
            for m in sizes:
                s = in_child(fit_native, (m, r, line), fresh)
                cpu.append(s["cpu"])
                print(f"{name:>12} {m:6d} {s['wall']:7.2f} {s['cpu']:7.2f} {s['alloc'] / 2**20:9.1f} "
                      f"{s['rss'] / 2**20:7.0f} {s['iterations']:5d} {s['status']:>9} {s['gap']:8.1e} "
                      f"{s['support']:8d}")  # fmt: skip
            if len(sizes) > 1:
                ends, fitted = growth(sizes, cpu)
                print(f"{name:>12} growth exponent of CPU time {sizes[0]}->{sizes[-1]}: {ends:.2f} "
                      f"(least squares over {len(sizes)} sizes: {fitted:.2f})")  # fmt: skip
    if exchange:
        for m in [v for v in sizes if v <= conic_max]:
            rounds = exchange_rounds(m)
            trail = ", ".join(f"{g:.0e}" for _, g, _ in rounds)
            print(f"exchange method (restricted problems by Clarabel), r=2 segment, m = {m}: {len(rounds)} rounds, "
                  f"{rounds[-1][0]} virtual points ({rounds[-1][0] / m:.2f} per trajectory), {rounds[-1][2]:.1f} s; "
                  f"gap by round: {trail}")  # fmt: skip
    conic_sizes = [m for m in sizes if m <= conic_max] or ([sizes[0]] if conic_max >= sizes[0] else [])
    for m in conic_sizes:
        c = in_child(fit_conic, m, fresh)
        n = in_child(fit_native, (m, 2, False), fresh)
        print(f"conic route (CVXPY + Clarabel), r=2 segment, m = {m}: wall {c['wall']:.2f} s, CPU {c['cpu']:.2f} s, "
              f"peak alloc {c['alloc'] / 2**20:.0f} MB, {c['status']}; native CPU {n['cpu']:.2f} s "
              f"({c['cpu'] / n['cpu']:.0f}x less)")  # fmt: skip


# ----------------------------------------------------------------------------- digits
def rotate(X: np.ndarray, degrees: np.ndarray) -> np.ndarray:
    from scipy import ndimage

    out = [ndimage.rotate(x.reshape(8, 8), a, reshape=False, order=1, mode="grid-constant") for x, a in zip(X, degrees)]
    return np.clip(np.array(out).reshape(len(X), -1), 0.0, None)


def fit_sdpm_digits(args: tuple[np.ndarray, np.ndarray, float, float]) -> tuple[Any, dict[str, float]]:
    from sdpkern.estimators import SDPMClassifier

    X, y, C, segment = args
    return measured(lambda: SDPMClassifier(transformation="rotation", segment=segment, C=C).fit(X, y))


class VirtualSVM:
    """003 §4's virtual SVM, one-vs-rest: each class's linear SVC refitted on its support vectors
    and their rotations by ±angle in the quadratic approximation."""

    def __init__(self, C: float, radians: float) -> None:
        self.C, self.radians = C, radians

    def fit(self, X: np.ndarray, y: np.ndarray) -> VirtualSVM:
        from sklearn.svm import SVC

        from sdpkern.trajectories import ImageTransformation, evaluate_trajectories

        T = ImageTransformation("rotation", (8, 8))
        self.classes_, self.models_ = np.unique(y), []
        for c in self.classes_:
            yb = (y == c).astype(int)
            sv = SVC(kernel="linear", C=self.C).fit(X, yb).support_
            traj = T.taylor(X[sv], 2)
            turned = [evaluate_trajectories(traj, t) for t in (-self.radians, self.radians)]
            Xv = np.concatenate([X[sv], *turned])
            self.models_.append(SVC(kernel="linear", C=self.C).fit(Xv, np.tile(yb[sv], 3)))
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.classes_[np.argmax(np.column_stack([m.decision_function(X) for m in self.models_]), axis=1)]


def digits_part(segment_degrees: float, rotate_test: bool, n_images: int | None, fresh: bool, seed: int) -> None:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import GridSearchCV, train_test_split
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import SVC

    from sdpkern.estimators import SDPMClassifier

    d = load_digits()
    X, y = d.data / 16.0, d.target
    if n_images is not None:
        keep = np.random.default_rng(seed).permutation(len(y))[:n_images]
        X, y = X[keep], y[keep]
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=seed, stratify=y)
    tau = np.deg2rad(segment_degrees)
    tests = {"test": Xte}
    if rotate_test:
        angles = np.random.default_rng(seed + 1).uniform(-segment_degrees, segment_degrees, len(Xte))
        tests["rotated test"] = rotate(Xte, angles)
    rows: list[tuple[str, str, float, float, dict[str, float]]] = []

    def tuned(name: str, estimator: Any, grid: dict[str, list[float]]) -> Any:
        t0, c0 = time.perf_counter(), time.process_time()
        gs = GridSearchCV(estimator, grid, cv=3).fit(Xtr, ytr)
        rows.append((name, str(gs.best_params_), time.perf_counter() - t0, time.process_time() - c0, {}))
        return gs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # libsvm's convergence notes on the grids' extreme C
        sdpm = SDPMClassifier(transformation="rotation", segment=tau)
        sd = tuned("SDPM (C by 3-fold CV)", sdpm, {"C": [0.1, 1.0, 10.0]})
        C_sdpm = sd.best_params_["C"]
        model, stats = in_child(fit_sdpm_digits, (Xtr, ytr, C_sdpm, tau), fresh)
        linear = OneVsRestClassifier(SVC(kernel="linear"))
        lin = tuned("linear SVC, one-vs-rest", linear, {"estimator__C": [0.01, 0.1, 1.0, 10.0]})
        rbf = tuned("RBF SVC", SVC(kernel="rbf"), {"C": [1.0, 10.0, 100.0], "gamma": [0.01, 0.03, 0.1]})
        C_lin = lin.best_params_["estimator__C"]
        t0, c0 = time.perf_counter(), time.process_time()
        vsvm = VirtualSVM(C_lin, tau).fit(Xtr, ytr)
        what = f"C = {C_lin} (the linear SVC's), ±{segment_degrees:g} deg"
        rows.append(("virtual SVM (003 §4)", what, time.perf_counter() - t0, time.process_time() - c0, {}))
    print(f"\nDigits, all ten classes one-vs-rest: {len(ytr)} training images (every one of the 80 % split), "
          f"{len(yte)} test; SDPM rotation trajectories r = 2 on ±{segment_degrees:g} deg")  # fmt: skip
    print(f"SDPM fit of all ten classes at C = {C_sdpm:g}: wall {stats['wall']:.1f} s, CPU {stats['cpu']:.1f} s, "
          f"peak alloc {stats['alloc'] / 2**20:.0f} MB, peak RSS {stats['rss'] / 2**20:.0f} MB; statuses "
          f"{sorted(set(model.statuses_))}, largest certified gap {max(model.certificate_['value']):.1e}")  # fmt: skip
    predictors = {"SDPM": model, "linear SVC": lin, "RBF SVC": rbf, "virtual SVM": vsvm}
    header = f"{'method':>12} " + " ".join(f"{k + ' err':>17}" for k in tests)
    print(header)
    for name, est in predictors.items():
        print(f"{name:>12} " + " ".join(f"{np.mean(est.predict(Xt) != yte):17.4f}" for Xt in tests.values()))
    print("times (wall s / CPU s), tuning included:")
    for name, what, wall, cpu, _ in rows:
        print(f"  {name}: {wall:.1f} / {cpu:.1f}  [{what}]")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="1000,5000,10000", help="numbers of synthetic trajectories")
    p.add_argument("--conic-max", type=int, default=1000, help="time the conic route up to this m (r = 2 segment)")
    p.add_argument("--segment", type=float, default=20.0, help="digits: the SDPM's segment and the test rotation (deg)")
    p.add_argument("--rotate-test", action="store_true", help="digits: also rotated test images")
    p.add_argument("--exchange", action="store_true", help="also count the exchange method's rounds (m <= --conic-max)")
    p.add_argument("--skip-synthetic", action="store_true")
    p.add_argument("--skip-digits", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="m = 300, 600; digits on 300 images; no fresh processes")
    a = p.parse_args(argv)
    sizes = [300, 600] if a.quick else [int(v) for v in a.sizes.split(",")]
    fresh = not a.quick
    if not a.skip_synthetic:
        synthetic_part(sizes, 0 if a.quick else a.conic_max, fresh, a.exchange)
    if not a.skip_digits:
        digits_part(a.segment, a.rotate_test or a.quick, 300 if a.quick else None, fresh, a.seed)


if __name__ == "__main__":
    main()
