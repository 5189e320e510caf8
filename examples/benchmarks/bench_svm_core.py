"""The one SMO core against libsvm, and against the code it replaced
===================================================================

Prints, in one run:

1. each problem definition of :mod:`sdpkern.native.svm_core` (C-SVC, ν-SVC, one-class, ε-SVR,
   ν-SVR; the squared-hinge L2-SVC against scikit-learn's ``LinearSVC``-convention primal Newton
   route) beside scikit-learn's libsvm on the same precomputed kernel: fit time, SMO iterations
   and the relative difference of the dual objectives (both at ``tol=1e-3`` and ``1e-8``);
2. with ``--ab REV`` (a git revision of this repository from before the core, e.g. the commit the
   core was built on): the thin-plate dual (``cpd_dual_svm`` as ``ThinPlateSVC`` calls it) and
   ``PrimalSVC``'s dual (``dual_svm``), old code path against the core, in this one process
   (the old package is built from REV under the name ``sdpkern_ab``): time ratio new/old
   (best of 5, interleaved) and the relative gap of the optima, on several data sets.

3. with ``--only threads``: the core's passes on one thread and with a second (``n_jobs=2``) on
   7400-10,000 points (twonorm, ringnorm, Friedman #1; C-SVC, ν-SVC, ν-SVR and the
   single-coordinate form of the hyperkernel L2-SVM, K + 1 with no equality constraint): wall
   time (best of 3, interleaved), the ratio, and whether the two gave the same bits.

Usage::

    python examples/benchmarks/bench_svm_core.py                 # section 1
    python examples/benchmarks/bench_svm_core.py --ab <rev>      # and the A/B of section 2
    python examples/benchmarks/bench_svm_core.py --only threads  # section 3
    python examples/benchmarks/bench_svm_core.py --quick         # small sizes (docs gallery)
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR, NuSVC, NuSVR, OneClassSVM
from threadpoolctl import threadpool_limits

from sdpkern.datasets import load_keel
from sdpkern.kernels import Gaussian
from sdpkern.kernels.cpd import ThinPlate, polynomial_factor
from sdpkern.kernels.gram import KernelGram, reduced_gram
from sdpkern.native import svm_core
from sdpkern.native.cpd import cpd_dual_svm
from sdpkern.native.dual_svm import dual_svm


def keel(name: str, n: int | None, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    ds = load_keel(name)
    idx = np.random.default_rng(seed).permutation(ds.y.shape[0])
    if n is not None:
        idx = idx[:n]
    return StandardScaler().fit_transform(ds.X[idx]), ds.y[idx]


def timed(fn, repeats: int = 3):  # type: ignore[no-untyped-def]
    best, out = np.inf, None
    for _ in range(repeats):
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return best, out


# ------------------------------------------------------------------------------------ section 1
def _full(model, n: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    c = np.zeros(n)
    c[model.support_] = model.dual_coef_[0]
    return c


def _cases(X: np.ndarray, y: np.ndarray, z: np.ndarray, Kd: np.ndarray, g: float, tol: float) -> dict:  # type: ignore[type-arg]
    """(the core's solve, libsvm's fit, the dual objective from expansion coefficients) per problem."""

    def K() -> KernelGram:
        return KernelGram(Gaussian(gamma=g), X)

    return {
        "C-SVC": (lambda: svm_core.solve_csvc(K(), y, 1.0, tol=tol),
                  lambda: SVC(kernel="precomputed", C=1.0, tol=tol).fit(Kd, y),
                  lambda c: 0.5 * c @ Kd @ c - np.abs(c).sum()),
        "nu-SVC": (lambda: svm_core.solve_nusvc(K(), y, 0.3, tol=tol),
                   lambda: NuSVC(kernel="precomputed", nu=0.3, tol=tol).fit(Kd, y),
                   None),
        "one-class": (lambda: svm_core.solve_one_class(K(), 0.2, tol=tol),
                      lambda: OneClassSVM(kernel="precomputed", nu=0.2, tol=tol).fit(Kd),
                      lambda c: 0.5 * c @ Kd @ c),
        "eps-SVR": (lambda: svm_core.solve_epsilon_svr(K(), z, 1.0, 0.1, tol=tol),
                    lambda: SVR(kernel="precomputed", C=1.0, epsilon=0.1, tol=tol).fit(Kd, z),
                    lambda c: 0.5 * c @ Kd @ c - z @ c + 0.1 * np.abs(c).sum()),
        "nu-SVR": (lambda: svm_core.solve_nu_svr(K(), z, 1.0, 0.4, tol=tol),
                   lambda: NuSVR(kernel="precomputed", C=1.0, nu=0.4, tol=tol).fit(Kd, z),
                   lambda c: 0.5 * c @ Kd @ c - z @ c),
    }  # fmt: skip


def section_libsvm(quick: bool) -> None:
    print("== 1. the core's problem definitions vs scikit-learn's libsvm (kernel='precomputed', RBF) ==")
    print(f"{'set':>9} {'n':>5} {'problem':>9} {'tol':>6} | {'core s':>7} {'iters':>7} | {'libsvm s':>8} | "
          f"{'core/libsvm':>11} {'rel. obj. diff':>14}")
    for name, n in (("banana", 600 if quick else 2000), ("twonorm", 500 if quick else 2000)):
        X, y = keel(name, n)
        g = 1.0 / X.shape[1]
        Kd = Gaussian(gamma=g)(X)
        z = X[:, 0] + np.sin(X[:, 1]) + 0.1 * y  # a smooth target for the regressions
        for tol in (1e-3, 1e-8):
            cases = _cases(X, y, z, Kd, g, tol)
            for prob, (ours, theirs, objective) in cases.items():
                t_o, sol = timed(ours)
                t_l, model = timed(theirs)
                c = _full(model, n)
                if objective is None:  # ν-SVC: the ν-problem's α = |c|·r, r from eᵀα = ν n
                    a = np.abs(c) * (0.3 * n / np.abs(c).sum())
                    ref = 0.5 * (y * a) @ Kd @ (y * a)
                else:
                    ref = objective(c)
                diff = abs(sol.objective - ref) / max(1.0, abs(ref))
                print(f"{name:>9} {n:>5} {prob:>9} {tol:>6.0e} | {t_o:>7.3f} {sol.n_iter:>7d} | {t_l:>8.3f} | "
                      f"{t_o / t_l:>10.2f}x {diff:>14.1e}")


# ------------------------------------------------------------------------------------ section 2
def build_old(rev: str) -> object:
    """The package at ``rev`` built as ``sdpkern_ab`` (cached under the temp directory)."""
    repo = Path(__file__).resolve().parent.parent
    sha = subprocess.run(["git", "-C", str(repo), "rev-parse", rev], check=True, capture_output=True,
                         text=True).stdout.strip()  # fmt: skip
    root = Path(tempfile.gettempdir()) / f"sdpkern_ab_{sha[:12]}"
    if not (root / "sdpkern_ab" / ".built").exists():
        root.mkdir(exist_ok=True)
        tar = subprocess.run(["git", "-C", str(repo), "archive", sha, "sdpkern"], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(root)], input=tar.stdout, check=True)
        os.replace(root / "sdpkern", root / "sdpkern_ab")
        (root / "setup_ab.py").write_text(
            "import numpy as np\nfrom Cython.Build import cythonize\nfrom setuptools import Extension, setup\n"
            "ext = [Extension(m, [m.replace('.', '/') + '.pyx'], include_dirs=[np.get_include()],"
            " extra_compile_args=['-O3'])\n"
            "       for m in ('sdpkern_ab._svmcore', 'sdpkern_ab._hkcore', 'sdpkern_ab._newtoncore')]\n"
            "setup(ext_modules=cythonize(ext, compiler_directives={'language_level': '3'}, quiet=True))\n"
        )
        subprocess.run([sys.executable, "setup_ab.py", "build_ext", "--inplace", "-q"], cwd=root, check=True,
                       capture_output=True)  # fmt: skip
        (root / "sdpkern_ab" / ".built").write_text(sha)
    sys.path.insert(0, str(root))
    return importlib.import_module("sdpkern_ab")


def _ab_routes(X: np.ndarray, y: np.ndarray, C: float, old: tuple) -> dict:  # type: ignore[type-arg]
    """The two routes, new and old, as calls returning (objective, SMO steps)."""
    old_dual, old_gram, old_cpd, old_base = old
    d = X.shape[1]
    tp_new, tp_old = ThinPlate(2, formula_dimension=2), old_cpd.ThinPlate(2, formula_dimension=2)
    Q = polynomial_factor(X, tp_new).Q

    def new_tp(tol: float = 1e-3, polish: object = "auto") -> tuple[float, int]:
        r = cpd_dual_svm(reduced_gram(tp_new, X, Q), Q, y, C, tol=tol, polish=polish)
        return r.objective, r.dual.n_iter

    def old_tp(tol: float = 1e-3, polish: object = "auto") -> tuple[float, int]:
        lam = 1.0 / (2.0 * C)
        r = old_dual.cpd_dual_svm(tp_old, X, Q, y, lam, reduced=old_gram.reduced_gram(tp_old, X, Q), tol=tol,
                                  polish=polish)  # fmt: skip
        return r.objective, r.dual.n_iter

    def new_ps(tol: float = 1e-3, polish: object = "auto") -> tuple[float, int]:
        r = dual_svm(KernelGram(Gaussian(gamma=1.0 / d), X), y, C, loss="squared_hinge", tol=tol, polish=polish)
        return r.objective, r.n_iter

    def old_ps(tol: float = 1e-3, polish: object = "auto") -> tuple[float, int]:
        r = old_dual.dual_svm(old_gram.KernelGram(old_base.Gaussian(gamma=1.0 / d), X), y, C,
                              loss="squared_hinge", tol=tol, polish=polish)  # fmt: skip
        return r.objective, r.n_iter

    return {"thin-plate": (new_tp, old_tp), "PrimalSVC": (new_ps, old_ps)}


def section_ab(rev: str, quick: bool) -> None:
    old = build_old(rev)
    old_dual = importlib.import_module("sdpkern_ab.native.dual_svm")
    old_gram = importlib.import_module("sdpkern_ab.kernels.gram")
    old_cpd = importlib.import_module("sdpkern_ab.kernels.cpd")
    old_base = importlib.import_module("sdpkern_ab.kernels.base")
    print(f"\n== 2. A/B in one process: the core (this tree) vs the old code path ({rev}, package {old.__name__}) ==")
    print("   thin-plate dual: cpd_dual_svm on K_Xi as ThinPlateSVC calls it (squared hinge, tol 1e-3, polish='auto');")
    print("   PrimalSVC dual: dual_svm (RBF, gamma = 1/d, squared hinge, tol 1e-3, polish='auto');")
    print("   CPU seconds, best of 7 (old and new interleaved); optimum gap = |new - old| / old;")
    print("   'tight': both at tol 1e-7 without the closing Newton step")
    print(f"{'route':>10} {'set':>9} {'n':>5} {'d':>3} {'C':>6} | {'old s':>7} {'new s':>7} {'new/old':>8} | "
          f"{'old it':>7} {'new it':>7} | {'gap':>8} {'gap tight':>9}")
    sets = [("banana", 3000), ("twonorm", 3000), ("ringnorm", 3000), ("german", None), ("splice", 1500),
            ("pima", None)]  # fmt: skip
    if quick:
        sets = [("banana", 600), ("german", 400), ("pima", 400)]
    worst, total_old, total_new = 0.0, 0.0, 0.0
    for name, n in sets:
        X, y = keel(name, n)
        d = X.shape[1]
        for C in (1.0, 10.0):
            routes = _ab_routes(X, y, C, (old_dual, old_gram, old_cpd, old_base))
            for route, (new, oldf) in routes.items():
                t_new, t_old = np.inf, np.inf
                for _ in range(2 if quick else 7):
                    t0 = time.process_time()
                    o_old, it_old = oldf()
                    t_old = min(t_old, time.process_time() - t0)
                    t0 = time.process_time()
                    o_new, it_new = new()
                    t_new = min(t_new, time.process_time() - t0)
                gap = abs(o_new - o_old) / abs(o_old)
                tight = abs(new(1e-7, False)[0] - oldf(1e-7, False)[0]) / abs(o_old)
                worst = max(worst, t_new / t_old)
                total_old, total_new = total_old + t_old, total_new + t_new
                print(f"{route:>10} {name:>9} {X.shape[0]:>5} {d:>3} {C:>6.1f} | {t_old:>7.3f} {t_new:>7.3f} "
                      f"{t_new / t_old:>7.2f}x | {it_old:>7d} {it_new:>7d} | {gap:>8.1e} {tight:>9.1e}")
    print(f"   new/old time ratio: worst {worst:.2f}x, all fits together {total_new / total_old:.2f}x")


# ------------------------------------------------------------------------------------ section 3
def _thread_cases(X: np.ndarray, y: np.ndarray | None, z: np.ndarray | None) -> dict:  # type: ignore[type-arg]
    """The solves of section 3 on one set, each a function of n_jobs."""
    from sdpkern.kernels.gram import PrecomputedGram

    n, g = X.shape[0], 1.0 / X.shape[1]
    if z is not None:
        return {"nu-SVR": lambda j: svm_core.solve_nu_svr(KernelGram(Gaussian(gamma=g), X), z, 10.0, 0.3, n_jobs=j)}
    Kb = PrecomputedGram(Gaussian(gamma=g)(X) + 1.0)  # the hyperkernel L2-SVM's form: the bias in the kernel
    return {
        "C-SVC": lambda j: svm_core.solve_csvc(KernelGram(Gaussian(gamma=g), X), y, 1.0, n_jobs=j),
        "nu-SVC": lambda j: svm_core.solve_nusvc(KernelGram(Gaussian(gamma=g), X), y, 0.3, n_jobs=j),
        "L2 mode 0": lambda j: svm_core.solve_qp(Kb, y, -np.ones(n), np.inf, np.zeros(n), D=0.5, constraints="none",
                                                 n_jobs=j),
    }  # fmt: skip


def section_threads(quick: bool) -> None:
    from sklearn.datasets import make_friedman1

    print("== 3. the SMO passes on one thread and with a second (n_jobs=2), wall seconds, best of 3 ==")
    print(f"{'set':>9} {'n':>6} {'problem':>9} | {'1 thread':>8} {'2 threads':>9} {'ratio':>6} {'steps':>7} "
          f"{'same bits':>9}")
    sets: list[tuple[str, np.ndarray, np.ndarray | None, np.ndarray | None]] = []
    for name in ("twonorm", "ringnorm"):
        X, y = keel(name, 1500 if quick else None)
        sets.append((name, X, y, None))
    X, z = make_friedman1(1500 if quick else 10000, noise=1.0, random_state=0)
    sets.append(("friedman1", StandardScaler().fit_transform(X), None, z))
    for name, X, y, z in sets:
        for prob, solve in _thread_cases(X, y, z).items():
            best = {1: np.inf, 2: np.inf}
            sols = {}
            for _ in range(3):
                for j in (1, 2):
                    t0 = time.perf_counter()
                    sols[j] = solve(j)
                    best[j] = min(best[j], time.perf_counter() - t0)
            same = np.array_equal(sols[1].alpha, sols[2].alpha) and sols[1].n_iter == sols[2].n_iter
            print(f"{name:>9} {X.shape[0]:>6} {prob:>9} | {best[1]:>8.2f} {best[2]:>9.2f} {best[2] / best[1]:>6.2f} "
                  f"{sols[1].n_iter:>7d} {str(same):>9}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--ab", metavar="REV", default=None, help="a git revision from before the core")
    parser.add_argument("--only", choices=["libsvm", "ab", "threads"], default=None)
    args = parser.parse_args(argv)
    # libsvm uses no BLAS; the core's products over cached columns are small: one thread each
    with threadpool_limits(limits=1, user_api="blas"):
        if args.only in (None, "libsvm"):
            section_libsvm(args.quick)
        if args.ab is not None and args.only in (None, "ab"):
            section_ab(args.ab, args.quick)
        if args.only == "threads":
            section_threads(args.quick)


if __name__ == "__main__":
    main(sys.argv[1:])
