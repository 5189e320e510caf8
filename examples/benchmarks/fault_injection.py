"""Fault injection: what a user gets from every estimator when its solver fails
============================================================================

Each estimator is fitted on a small data set while the solver it depends on is made to fail in
one of five ways:

``raises``           the solver raises (a crash inside the solver's package);
``nan``              it returns NaN where its answer should be (and calls it solved);
``time_limit``       it stops at a time limit before converging;
``iteration_limit``  it stops at its iteration cap;
``interrupt``        ``KeyboardInterrupt`` (Ctrl-C) arrives in the middle of the solve.

For the estimators solved through CVXPY the fault is injected into both default backends
(Clarabel and SCS, so the recovery policy has nothing to fall back on); for the native ones
into the function the estimator calls (the primal Newton SVM, the Krylov solver, libsvm, the
eigensolver, the native hyperkernel master). A fault a solver cannot have (a time limit in a
method without one) is marked ``n/a``.

The table says, per estimator and fault, what the user gets: a typed error (its class and
status), or a fitted estimator with its ``status_`` and whether ``predict`` serves it. The rule
it checks: nothing returns a fitted model from an uncertified solve without a typed status that
``predict`` refuses; every error is an ``SdpkernError``; ``KeyboardInterrupt`` propagates and
leaves the estimator as it was. ``python examples/benchmarks/fault_injection.py`` prints the table and exits
with the number of violations (0); ``tests/test_fault_injection.py`` runs it.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import warnings
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import numpy as np
from cvxpy.reductions.solvers.conic_solvers.clarabel_conif import CLARABEL
from cvxpy.reductions.solvers.conic_solvers.scs_conif import SCS
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

import sdpkern.estimators as E
from sdpkern.errors import SdpkernError, UncertifiedModelError

FAULTS = ("raises", "nan", "time_limit", "iteration_limit", "interrupt")


class Injected(RuntimeError):
    """The crash a faulty solver raises."""


# ----------------------------------------------------------------------------- conic backends
def _conic(fault: str) -> contextlib.AbstractContextManager[Any]:
    """Clarabel and SCS (CVXPY's interfaces) made faulty."""
    real = {CLARABEL: CLARABEL.solve_via_data, SCS: SCS.solve_via_data}
    limits = {
        CLARABEL: {"time_limit": {"time_limit": 1e-9}, "iteration_limit": {"max_iter": 1}},
        SCS: {"time_limit": {"time_limit_secs": 1e-9}, "iteration_limit": {"max_iters": 1}},
    }

    def make(cls: type) -> Callable[..., Any]:
        def faulty(self: Any, data: Any, warm_start: bool, verbose: bool, solver_opts: dict, *a: Any, **k: Any) -> Any:
            if fault == "raises":
                raise Injected("the solver crashed")
            if fault == "interrupt":
                raise KeyboardInterrupt
            if fault == "nan":
                raw = real[cls](self, data, warm_start, verbose, solver_opts, *a, **k)
                if isinstance(raw, dict):  # SCS: x, y, s arrays and an info dict
                    return {**raw, "x": raw["x"] * np.nan, "y": raw["y"] * np.nan, "s": raw["s"] * np.nan}
                for name in ("x", "z", "s"):  # Clarabel's solution object
                    setattr(raw, name, [float("nan")] * len(getattr(raw, name)))
                raw.obj_val = raw.obj_val_dual = float("nan")
                return raw
            opts = {**solver_opts, **limits[cls][fault]}
            return real[cls](self, data, warm_start, verbose, opts, *a, **k)

        return faulty

    stack = contextlib.ExitStack()
    for cls in real:
        stack.enter_context(mock.patch.object(cls, "solve_via_data", make(cls)))
    return stack


# ----------------------------------------------------------------------------- native solvers
def _result_patch(target: str, fault: str, *, nan: Callable[[Any], Any], limit: dict[str, Any] | None,
                  limit_kw: dict[str, Any] | None = None) -> contextlib.AbstractContextManager[Any] | None:
    """Patch the function ``target`` (module.attr) an estimator calls: raise, interrupt, return
    ``nan(result)``, or call it with the keyword arguments ``limit`` (None: no such fault)."""
    module, attr = target.rsplit(".", 1)
    real = getattr(__import__(module, fromlist=[attr]), attr)
    if fault in ("time_limit", "iteration_limit") and (limit_kw or {}).get(fault) is None:
        return None

    def faulty(*args: Any, **kwargs: Any) -> Any:
        if fault == "raises":
            raise Injected("the solver crashed")
        if fault == "interrupt":
            raise KeyboardInterrupt
        if fault == "nan":
            return nan(real(*args, **kwargs))
        return real(*args, **{**kwargs, **(limit_kw or {})[fault]})

    return mock.patch(target, faulty)


def _nan_fields(*names: str) -> Callable[[Any], Any]:
    def spoil(result: Any) -> Any:
        return dataclasses.replace(result, **{n: np.asarray(getattr(result, n), dtype=float) * np.nan for n in names})

    return spoil


def _krylov(fault: str) -> contextlib.AbstractContextManager[Any] | None:
    from sdpkern.native.krylov import get_solver

    if fault in ("time_limit", "iteration_limit"):
        return None  # early stopping is the method: its iteration count is the estimate (002 §5.3)

    def factory(method: str) -> Callable[..., Any]:
        solve = get_solver(method)

        def faulty(*args: Any, **kwargs: Any) -> Any:
            if fault == "raises":
                raise Injected("the solver crashed")
            if fault == "interrupt":
                raise KeyboardInterrupt
            res = solve(*args, **kwargs)
            return dataclasses.replace(res, x=res.x * np.nan)

        return faulty

    return mock.patch("sdpkern.estimators.native.get_solver", factory)


def _libsvm(fault: str) -> contextlib.AbstractContextManager[Any] | None:
    from sklearn.svm import SVC

    real = SVC.fit
    if fault == "time_limit":
        return None  # libsvm has no time limit

    def faulty(self: Any, *args: Any, **kwargs: Any) -> Any:
        if fault == "raises":
            raise Injected("the solver crashed")
        if fault == "interrupt":
            raise KeyboardInterrupt
        if fault == "iteration_limit":
            self.max_iter = 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return real(self, *args, **kwargs)
        out = real(self, *args, **kwargs)
        self._dual_coef_ = self._dual_coef_ * np.nan
        self.dual_coef_ = self.dual_coef_ * np.nan
        return out

    return mock.patch.object(SVC, "fit", faulty)


#: name -> (estimator, data kind, how to make its solver faulty)
def _cases() -> dict[str, tuple[Any, str, Callable[[str], Any]]]:
    native_hk = {"time_limit": {"time_limit": 0.0}, "iteration_limit": {"max_steps": 1}}
    primal = {"iteration_limit": {"max_iter": 1}}
    native_sdpm = {"time_limit": {"time_limit": 1e-9}, "iteration_limit": {"max_iter": 1}}
    return {
        "CPDSVC(solver='cvxpy')": (E.CPDSVC(solver="cvxpy"), "binary", _conic),
        "ThinPlateSVC(solver='cvxpy')": (E.ThinPlateSVC(solver="cvxpy"), "binary", _conic),
        "SDPMClassifier(solver='conic')": (E.SDPMClassifier(transformation=_rotate, solver="conic"), "plane", _conic),
        "SDPMClassifier(solver='native')": (
            E.SDPMClassifier(transformation=_rotate, solver="native"), "plane",
            lambda f: _result_patch("sdpkern.estimators.sdpm.sdpm_native", f, nan=_nan_fields("coef", "expansion"),
                                    limit=None, limit_kw=native_sdpm),
        ),
        "PrimalSVC(kernel='rbf', solver='exact')": (
            E.PrimalSVC(kernel="rbf", solver="exact"), "binary",
            lambda f: _result_patch("sdpkern.estimators.native.primal_svm_kernel", f,
                                    nan=_nan_fields("coef"), limit=None, limit_kw=primal),
        ),
        "KrylovRegressor": (E.KrylovRegressor(n_iter=5), "regression", _krylov),
        "KrylovFisherDiscriminant": (E.KrylovFisherDiscriminant(n_iter=5), "binary", _krylov),
        "IndefiniteKernelPCA": (
            E.IndefiniteKernelPCA(n_components=2), "unlabelled",
            lambda f: _result_patch("sdpkern.estimators.native.indefinite_kpca", f,
                                    nan=_nan_fields("eigenvalues", "eigenvectors"), limit=None),
        ),
        "IndefiniteSVC": (E.IndefiniteSVC(), "binary", _libsvm),
        "HyperkernelSVC(solver='conic')": (E.HyperkernelSVC(solver="conic"), "binary", _conic),
        "HyperkernelSVC(solver='native')": (
            E.HyperkernelSVC(solver="native", lambda_Q=100.0), "binary_large",
            lambda f: _result_patch("sdpkern.estimators.hyperkernel.hyperkernel_csvm_native", f,
                                    nan=_nan_fields("alpha", "beta"), limit=None, limit_kw=native_hk),
        ),
        "HyperkernelNuSVC": (E.HyperkernelNuSVC(solver="conic"), "binary", _conic),
        "HyperkernelL2SVC": (E.HyperkernelL2SVC(solver="conic"), "binary", _conic),
        "HyperkernelOneClassSVM": (E.HyperkernelOneClassSVM(solver="conic"), "unlabelled", _conic),
        "HyperkernelNuSVR": (E.HyperkernelNuSVR(solver="conic"), "regression", _conic),
        "HyperkernelAlignment": (E.HyperkernelAlignment(solver="conic"), "binary", _conic),
    }  # fmt: skip


def _data(kind: str) -> tuple[np.ndarray, np.ndarray | None]:
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    half = 60 if kind == "binary_large" else 15
    idx = np.r_[rng.choice(np.flatnonzero(y == 0), half, replace=False),
                rng.choice(np.flatnonzero(y == 1), half, replace=False)]  # fmt: skip
    Xs = StandardScaler().fit_transform(X)[idx][:, :5]
    if kind in ("binary", "binary_large"):
        return Xs, y[idx]
    if kind == "regression":
        return Xs, Xs[:, 0] + 0.1 * rng.normal(size=Xs.shape[0])
    if kind == "unlabelled":
        return Xs, None
    return Xs[:, :2], y[idx]  # "plane": the SDPM's points, rotated about the origin (_rotate)


def _rotate(theta: Any, X: np.ndarray) -> np.ndarray:
    """The SDPM's transformation: a rotation of the plane by ``theta`` (003 §2)."""
    c, s = np.cos(theta), np.sin(theta)
    return np.column_stack([c * X[:, 0] - s * X[:, 1], s * X[:, 0] + c * X[:, 1]])


@dataclasses.dataclass
class Outcome:
    """What the user got from one fit under one fault."""

    estimator: str
    fault: str
    got: str
    violation: str | None = None

    def row(self) -> str:
        flag = "" if self.violation is None else f"   <-- VIOLATION: {self.violation}"
        return f"{self.estimator:<40} {self.fault:<16} {self.got}{flag}"


def _serve(est: Any, X: Any) -> str:
    for method in ("predict", "transform"):
        if hasattr(est, method):
            try:
                getattr(est, method)(X)
            except UncertifiedModelError:
                return "refused"
            return "served"
    return "served"


def run_one(name: str, est: Any, kind: str, inject: Callable[[str], Any], fault: str) -> Outcome:
    """Fit a fresh clone of ``est`` with ``fault`` injected; classify what comes back."""
    X, y = _data(kind)
    patch = inject(fault)
    if patch is None:
        return Outcome(name, fault, "n/a (the solver has no such limit)")
    model = clone(est)
    before = set(model.__dict__)
    args = (X,) if y is None else (X, y)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with patch:
                model.fit(*args)
    except KeyboardInterrupt:
        left = set(model.__dict__) - before
        if fault != "interrupt":
            return Outcome(name, fault, "KeyboardInterrupt", "an interrupt nobody sent")
        return Outcome(name, fault, "KeyboardInterrupt propagated" + ("" if not left else f"; left {sorted(left)}"),
                       None if not left else "a half-fitted estimator")  # fmt: skip
    except SdpkernError as exc:
        status = getattr(exc, "status", None)
        return Outcome(name, fault, f"{type(exc).__name__}" + ("" if status is None else f" (status {status!r})"))
    except Exception as exc:  # noqa: BLE001 (what a user would see: anything untyped is a violation)
        return Outcome(name, fault, f"{type(exc).__name__}: {str(exc)[:60]}", "an untyped error")
    if fault == "interrupt":
        return Outcome(name, fault, "fitted", "the interrupt was swallowed")
    status = getattr(model, "status_", None)
    served = _serve(model, X)
    got = f"fitted, status_={status!r}, predict {served}"
    if served == "served" and status != "optimal":
        return Outcome(name, fault, got, "an uncertified model served")
    if served == "served" and fault in ("time_limit", "iteration_limit"):
        return Outcome(name, fault, got + " (the solve certified before the limit)")
    if served == "served":
        return Outcome(name, fault, got, "a faulty solve passed as optimal")
    return Outcome(name, fault, got)


def run(estimators: list[str] | None = None, faults: tuple[str, ...] = FAULTS) -> list[Outcome]:
    """Every (estimator, fault) pair; ``estimators`` filters by name."""
    cases = _cases()
    names = [n for n in cases if estimators is None or n in estimators]
    return [run_one(n, *cases[n], f) for n in names for f in faults]  # type: ignore[misc]


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    import logging

    logger = logging.getLogger("cvxpy")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def main(argv: list[str] | None = None) -> int:
    """Print the table; return the number of violations."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--estimators", nargs="*", default=None, help="names as printed (default: all)")
    args = ap.parse_args(argv)
    with _quiet():
        outcomes = run(args.estimators)
    print(f"{'estimator':<40} {'fault':<16} what the user gets")
    print("-" * 110)
    for o in outcomes:
        print(o.row())
    bad = [o for o in outcomes if o.violation]
    print(f"\n{len(outcomes)} fits, {len(bad)} violation(s) of the rule")
    return len(bad)


if __name__ == "__main__":
    main()
