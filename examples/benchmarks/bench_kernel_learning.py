"""Does the default hyperkernel learner learn? Against a fixed kernel, a tuned SVC and MKLpy
=========================================================================================

For each data set and random 60/40 split (inputs standardised on the training part, at most
``--m-max`` training points), the test error of

* ``HyperkernelSVC()``: the default learner (the dictionary of harmonic ARD kernels over the
  width ladder and the features an HSIC screen selects, 002 eq. 2.23, ``lambda_Q="auto"``);
* ``fixed``: the previous default's kernel with the same C = 1, its first basis term (the mean of
  the harmonic ARD kernels over the width ladder, 002 eq. 2.22), in ``SVC(kernel="precomputed")``:
  the estimator restricted to that term;
* ``SVC grid``: an RBF ``SVC`` tuned by 5-fold ``GridSearchCV`` over 7 C × 6 γ;
* ``EasyMKL-CV``: MKLpy's EasyMKL over 11 RBF widths and the linear kernel, λ chosen by its
  3-fold cross-validation (only where MKLpy is installed: it is not a dependency of sdpkern).

The table gives the mean ± standard deviation of each error, the mean paired difference
HyperkernelSVC − fixed, the mean number of nonzero β, the fit time against the grid search
(CPU seconds, same process), and the summary lines the kernel-learning acceptance asks for.

``--noise 10,40,100`` instead adds that many standard-normal features to each set and prints
each method's rise in error, the ratio of the rises, and how the learned ``feature_relevance_``
ranks the real features against the noise (AUC, ties counting ½).

``--params JSON`` and ``--rho R`` (ρ of ``lambda_Q="auto"``) run the table for other settings of the
default learner (the fixed kernel, the grid and EasyMKL are shared through ``--cache``).

``--cause`` prints why the previous default never changed its kernel: for the thesis' hyperkernel
(``HarmonicARD()``, one width, C = 100, λ_Q = 1, 002 §3.2) and the previous default (the width
ladder, C = 1) on each set, the number of nonzero β, whether the first term's kernel K_0 dominates
every other term's (K_0 − K_l ⪰ 0), the threshold λ_Q* above which a second term enters, and at
λ_Q = 10·λ_Q* the nonzero β, the test error and the learned kernel's centred contrast
‖HKH‖_F / ‖K‖_F against K_0's (a collapsed kernel is nearly constant: contrast near 0).

Run: ``python examples/benchmarks/bench_kernel_learning.py`` (``--quick`` for two sets and two
splits; ``--cache FILE`` keeps finished fits across runs).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from sdpkern.datasets import load_keel
from sdpkern.estimators import HyperkernelSVC
from sdpkern.kernels import ARDDictionary
from sdpkern.kernels.hyperkernel_terms import learned_block

SETS = ["pima", "heart", "breast", "wdbc", "ionosphere", "sonar", "thyroid", "glass", "crx", "german", "banana",
        "twonorm", "wine", "iris"]  # fmt: skip
NOISE_SETS = ["pima", "heart", "thyroid", "wdbc"]


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A data set by name: KEEL copies of the papers' sets, or scikit-learn's wine and iris."""
    if name in ("wine", "iris"):
        X, y = (load_wine if name == "wine" else load_iris)(return_X_y=True)
        return X.astype(float), y
    if name == "cancer":
        X, y = load_breast_cancer(return_X_y=True)
        return X.astype(float), y
    ds = load_keel(name)
    return ds.X, ds.y


def split(name: str, seed: int, m_max: int, noise: int) -> tuple[np.ndarray, ...]:
    X, y = load(name)
    train = min(m_max, int(0.6 * y.shape[0]))
    Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=train, random_state=seed, stratify=y)
    Xte, yte = Xte[:2000], yte[:2000]
    if noise:
        rng = np.random.default_rng(1000 + seed)
        Xtr = np.hstack([Xtr, rng.standard_normal((Xtr.shape[0], noise))])
        Xte = np.hstack([Xte, rng.standard_normal((Xte.shape[0], noise))])
    sc = StandardScaler().fit(Xtr)
    return sc.transform(Xtr), sc.transform(Xte), ytr, yte


def timed(fit: Any) -> tuple[Any, float]:
    c0 = time.process_time()
    out = fit()
    return out, time.process_time() - c0


#: HyperkernelSVC's parameters in the benchmark (``--params``; the defaults when empty)
PARAMS: dict[str, Any] = {}
#: the ``--cache`` file, written after each data set so that an interrupted run keeps its fits
CACHE_PATH: list[Path] = []


def save(cache: dict[str, Any]) -> None:
    """Write the cache atomically (a temporary file replaced in one step)."""
    for path in CACHE_PATH:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(cache))
        tmp.replace(path)


def run_ours(Xtr, Xte, ytr, yte) -> dict[str, Any]:
    params = {k: v for k, v in PARAMS.items() if not k.startswith("_")}
    clf, t = timed(lambda: HyperkernelSVC(**params).fit(Xtr, ytr))
    models = clf.estimators_ if hasattr(clf, "estimators_") else [clf]
    nnz = float(np.mean([np.sum(m.beta_ > 1e-6) for m in models]))
    rel = np.mean([m.feature_relevance_ for m in models], axis=0)
    terms = float(np.mean([m.beta_.size for m in models]))
    return {"err": 1.0 - clf.score(Xte, yte), "time": t, "nnz": nnz, "terms": terms, "relevance": rel.tolist(),
            "status": clf.status_}  # fmt: skip


def run_fixed(Xtr, Xte, ytr, yte) -> dict[str, Any]:
    def fit() -> float:
        hk = ARDDictionary(normalization=None).fitted(Xtr)
        B = hk.basis(Xtr)
        u = np.full(B.size, 1.0 / B.size)  # the width ladder's mean: the previous default's first term
        svc = SVC(kernel="precomputed", C=1.0).fit(learned_block(hk, B.features, u, Xtr, Xtr), ytr)
        return float(np.mean(svc.predict(learned_block(hk, B.features, u, Xte, Xtr)) != yte))

    err, t = timed(fit)
    return {"err": err, "time": t}


def run_svc(Xtr, Xte, ytr, yte) -> dict[str, Any]:
    d = Xtr.shape[1]
    grid = {"C": np.logspace(-2, 4, 7), "gamma": np.logspace(-2, 1.5, 6) / d}
    gs, t = timed(lambda: GridSearchCV(SVC(kernel="rbf"), grid, cv=5).fit(Xtr, ytr))
    return {"err": 1.0 - gs.score(Xte, yte), "time": t}


def run_easymkl(Xtr, Xte, ytr, yte) -> dict[str, Any] | None:
    try:
        import torch
        from MKLpy.algorithms import EasyMKL
        from MKLpy.model_selection import cross_val_score
        from MKLpy.multiclass import OneVsRestMKLClassifier  # noqa: F401  (EasyMKL is binary)
    except ImportError:
        return None
    from sklearn.metrics.pairwise import linear_kernel, rbf_kernel

    def fit() -> float:
        d = Xtr.shape[1]
        gammas = np.logspace(-2, 1.5, 11) / d
        KLtr = [torch.tensor(rbf_kernel(Xtr, gamma=g)) for g in gammas] + [torch.tensor(linear_kernel(Xtr))]
        KLte = [torch.tensor(rbf_kernel(Xte, Xtr, gamma=g)) for g in gammas] + [torch.tensor(linear_kernel(Xte, Xtr))]
        Ytr = torch.tensor(ytr)
        best = (-np.inf, 0.0)
        for lam in np.linspace(0.0, 1.0, 6):
            score = float(np.mean(cross_val_score(KLtr, Ytr, EasyMKL(lam=float(lam)), n_folds=3, random_state=0)))
            if score > best[0]:
                best = (score, float(lam))
        model = EasyMKL(lam=best[1]).fit(KLtr, Ytr)
        return float(np.mean(np.asarray(model.predict(KLte)) != yte))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        err, t = timed(fit)
    return {"err": err, "time": t}


METHODS = {"ours": run_ours, "fixed": run_fixed, "svc": run_svc, "easymkl": run_easymkl}


def results(names: list[str], splits: int, m_max: int, noise: int, methods: list[str], cache: dict[str, Any]) -> dict:
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for name in names:
        out[name] = {k: [] for k in methods}
        for seed in range(splits):
            data = split(name, seed, m_max, noise)
            for method in methods:
                key = f"{name}|{seed}|{m_max}|{noise}|{method}"
                if method == "ours" and PARAMS:
                    key += "|" + json.dumps(PARAMS, sort_keys=True)
                if key not in cache:
                    cache[key] = METHODS[method](*data)
                if cache[key] is not None:
                    out[name][method].append(cache[key])
        print(f"  {name} done", flush=True)
        save(cache)
    return out


def ms(v: list[float]) -> str:
    return f"{100 * np.mean(v):5.2f}±{100 * np.std(v):4.2f}" if v else "    -     "


def table(res: dict, m_max: int) -> None:
    print(f"\n{'set':10} {'m':>4} {'d':>3} {'HyperkernelSVC':>14} {'fixed':>11} {'SVC grid':>11} {'EasyMKL-CV':>11} "
          f"{'paired':>7} {'nnz β':>9} {'fit s':>6} {'grid s':>6} {'ratio':>6}")  # fmt: skip
    summary = {"spread": 0, "le_fixed": 0, "sd": 0, "n": 0}
    mean_err = {k: [] for k in ("ours", "fixed", "svc", "easymkl")}
    ratios = []
    for name, r in res.items():
        X, _ = load(name)
        m = min(m_max, int(0.6 * X.shape[0]))
        e = {k: [x["err"] for x in r.get(k, [])] for k in mean_err}
        paired = float(np.mean(np.subtract(e["ours"], e["fixed"]))) if e["fixed"] else float("nan")
        nnz = float(np.median([x["nnz"] for x in r["ours"]]))
        terms = float(np.mean([x["terms"] for x in r["ours"]]))
        t_ours = float(np.mean([x["time"] for x in r["ours"]]))
        t_grid = float(np.mean([x["time"] for x in r["svc"]])) if r.get("svc") else float("nan")
        ratios.append(t_ours / t_grid)
        print(f"{name:10} {m:4d} {X.shape[1]:3d} {ms(e['ours']):>14} {ms(e['fixed']):>11} {ms(e['svc']):>11} "
              f"{ms(e['easymkl']):>11} {100 * paired:+7.2f} {nnz:4.0f}/{terms:<4.0f} {t_ours:6.2f} {t_grid:6.2f} "
              f"{t_ours / t_grid:6.2f}")  # fmt: skip
        for k in mean_err:
            if e[k]:
                mean_err[k].append(float(np.mean(e[k])))
        summary["n"] += 1
        summary["spread"] += nnz > 1
        summary["le_fixed"] += paired <= 1e-9  # equal errors over the splits: "at" the fixed kernel
        if e["svc"]:
            summary["sd"] += np.mean(e["ours"]) <= np.mean(e["svc"]) + np.std(e["svc"])
    n = summary["n"]
    print(f"\nβ with more than one nonzero term (median over splits): {summary['spread']} of {n} sets")
    print(f"HyperkernelSVC at or below the fixed kernel (mean paired difference ≤ 0): {summary['le_fixed']} of {n}")
    print(f"HyperkernelSVC within one SD of the tuned SVC: {summary['sd']} of {n} sets")
    for k, v in mean_err.items():
        if v:
            print(f"mean test error over sets, {k:8}: {100 * np.mean(v):.2f} %")
    print(f"fit time / grid time (CPU): worst {max(ratios):.2f}, median {np.median(ratios):.2f}")


def auc(rel: np.ndarray, d_real: int) -> float:
    a, b = rel[:d_real, None], rel[None, d_real:]
    return float(np.mean((a > b) + 0.5 * (a == b)))


def noise_table(names: list[str], levels: list[int], splits: int, m_max: int, cache: dict[str, Any]) -> None:
    print(f"\n{'set':10} {'noise':>5} {'HyperkernelSVC':>14} {'SVC grid':>11} {'rise HK':>8} {'rise SVC':>8} "
          f"{'HK/SVC':>7} {'AUC':>5}")  # fmt: skip
    for name in names:
        base = results([name], splits, m_max, 0, ["ours", "svc"], cache)[name]
        e0 = {k: float(np.mean([x["err"] for x in base[k]])) for k in ("ours", "svc")}
        print(f"{name:10} {0:5d} {ms([x['err'] for x in base['ours']]):>14} {ms([x['err'] for x in base['svc']]):>11}")
        d_real = load(name)[0].shape[1]
        for k in levels:
            r = results([name], splits, m_max, k, ["ours", "svc"], cache)[name]
            e = {m: float(np.mean([x["err"] for x in r[m]])) for m in ("ours", "svc")}
            rise = {m: e[m] - e0[m] for m in e}
            a = float(np.mean([auc(np.asarray(x["relevance"]), d_real) for x in r["ours"]]))
            ratio = rise["ours"] / rise["svc"] if rise["svc"] > 0 else float("nan")
            print(f"{name:10} {k:5d} {ms([x['err'] for x in r['ours']]):>14} {ms([x['err'] for x in r['svc']]):>11} "
                  f"{100 * rise['ours']:+8.2f} {100 * rise['svc']:+8.2f} {ratio:7.2f} {a:5.2f}")  # fmt: skip


def cause_table(names: list[str], seed: int, m_max: int) -> None:
    from sdpkern.kernels import HarmonicARD
    from sdpkern.kernels.hyperkernel_terms import term_quadratics
    from sdpkern.native.hyperkernel_master import NativeDecision, hyperkernel_csvm_native

    print(f"\n{'set':10} {'setting':8} {'nnz β':>5} {'K_0 ⪰ K_l':>9} {'λ_Q*':>8} | at 10·λ_Q*: {'nnz β':>5} "
          f"{'err %':>6} {'err % (λ_Q=1)':>13} {'contrast / K_0':>14}")  # fmt: skip

    def contrast(K: np.ndarray) -> float:
        r = K.mean(axis=0)
        Kc = K - r[None, :] - r[:, None] + r.mean()
        return float(np.linalg.norm(Kc) / np.linalg.norm(K))

    for name in names:
        Xtr, Xte, ytr, yte = split(name, seed, m_max, 0)
        y = np.where(ytr == np.unique(ytr)[1], 1.0, -1.0)
        yt = np.where(yte == np.unique(ytr)[1], 1.0, -1.0)
        for label, scales, C in (("thesis", (1.0,), 100.0), ("ladder", "ladder", 1.0)):
            hk = HarmonicARD(scales=scales).fitted(Xtr)
            est = HyperkernelSVC(hyperkernel=hk, C=C, lambda_Q=1.0, solver="native")
            B = est._basis(Xtr, y)
            r = hyperkernel_csvm_native(B, y, C=C, lambda_Q=1.0)
            Ks = B.kernels()
            dominated = all(np.linalg.eigvalsh(Ks[0] - K).min() >= -1e-9 * np.abs(Ks[0]).max() for K in Ks[1:])
            q = term_quadratics(hk, B.features, Xtr, y * r.alpha)
            L0 = B.L[0]
            n0 = float(np.linalg.norm(L0))
            lam_star = float(np.min([2 * (q[0] - q[l]) / (n0 - B.L[l] @ L0 / n0) for l in range(1, B.size)
                                     if n0 - B.L[l] @ L0 / n0 > 1e-12]))  # fmt: skip
            big = hyperkernel_csvm_native(B, y, C=C, lambda_Q=10 * lam_star)

            def err(res: Any, B: Any = B, y: np.ndarray = y, Xte: np.ndarray = Xte, yt: np.ndarray = yt) -> float:
                f = NativeDecision(B, res.beta, res.alpha * y, res.offset)(Xte)
                return float(np.mean(np.where(f > 0, 1.0, -1.0) != yt))

            c_ratio = contrast(np.tensordot(big.beta, Ks, axes=1)) / contrast(Ks[0])
            print(f"{name:10} {label:8} {int(np.sum(r.beta > 1e-6)):5d} {'yes' if dominated else 'no':>9} "
                  f"{lam_star:8.1f} |             {int(np.sum(big.beta > 1e-6)):5d} {100 * err(big):6.2f} "
                  f"{100 * err(r):13.2f} {c_ratio:14.3f}")  # fmt: skip


def scale_table(sizes: list[int], time_limit: float) -> None:
    """CPU time of one default fit against the previous default (the ladder, a fixed multi-width
    kernel) on a synthetic set: 20 standard-normal features, the label a noisy function of two."""
    from sdpkern.kernels import HarmonicARD

    head = f"{'m':>6} {'learner':10} {'cpu s':>7} {'status':>16} {'err %':>6} {'nnz β':>6} {'relevance real/noise':>21}"
    print("\n" + head)
    for m in sizes:
        rng = np.random.default_rng(0)
        X = rng.standard_normal((m + 2000, 20))
        y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.standard_normal(m + 2000) > 0.5, 1, -1)
        for label, hk in (("default", None), ("ladder", HarmonicARD(scales="ladder"))):
            est = HyperkernelSVC(hyperkernel=hk, solver_options={"time_limit": time_limit})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                clf, t = timed(partial(est.fit, X[:m], y[:m]))
            err = float(np.mean(clf.predict(X[m:]) != y[m:])) if clf.status_ == "optimal" else float("nan")
            rel = getattr(clf, "feature_relevance_", None)
            rr = "-" if rel is None else f"{rel[:2].mean():.2f} / {rel[2:].mean():.2f}"
            nnz = int(np.sum(clf.beta_ > 1e-6))
            print(f"{m:6d} {label:10} {t:7.1f} {clf.status_:>16} {100 * err:6.2f} {nnz:6d} {rr:>21}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description="Does the default hyperkernel learner learn?")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--m-max", type=int, default=500)
    ap.add_argument("--noise", default="", help="comma-separated numbers of added noise features (noise table)")
    ap.add_argument("--methods", default="ours,fixed,svc,easymkl")
    ap.add_argument("--cache", default=None, help="JSON file of finished fits, read and extended")
    ap.add_argument("--quick", action="store_true", help="two sets, two splits")
    ap.add_argument("--params", default="", help="HyperkernelSVC's parameters as JSON (default: its defaults)")
    ap.add_argument("--cause", action="store_true", help="why the previous default's β stayed on one term")
    ap.add_argument("--scale", default="", help="comma-separated m: CPU time of one fit on a synthetic set")
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per fit in --scale")
    ap.add_argument("--rho", type=float, default=None, help="ρ of lambda_Q='auto' (default: AUTO_LAMBDA_Q)")
    args = ap.parse_args()
    if args.params:
        PARAMS.update(json.loads(args.params))
    if args.rho is not None:
        import sdpkern.estimators.hyperkernel as hk_estimators

        hk_estimators.AUTO_LAMBDA_Q = args.rho
        PARAMS["_rho"] = args.rho  # in the cache key only
    names = args.sets.split(",")
    splits = args.splits
    if args.quick:
        names, splits = ["heart", "thyroid"], 2
    cache: dict[str, Any] = {}
    path = Path(args.cache) if args.cache else None
    if path is not None:
        CACHE_PATH.append(path)
        if path.exists():
            cache = json.loads(path.read_text())
    if args.scale:
        scale_table([int(v) for v in args.scale.split(",")], args.time_limit)
        return
    if args.cause:
        cause_table([n for n in names if n not in ("wine", "iris")], 0, min(args.m_max, 300))
        return
    try:
        if args.noise:
            sets = names if args.sets != ",".join(SETS) or args.quick else NOISE_SETS
            noise_table(sets, [int(v) for v in args.noise.split(",")], splits, args.m_max, cache)
        else:
            res = results(names, splits, args.m_max, 0, args.methods.split(","), cache)
            table(res, args.m_max)
    finally:
        save(cache)


if __name__ == "__main__":
    main()
