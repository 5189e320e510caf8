"""The release scheme of deprecations (docs/conventions.md, "Versions and deprecations"): every
deprecation message names the release that deprecated the old name and the one that removes it,
the first no later than the package's version, the second later."""

from __future__ import annotations

import importlib
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import sdpkern
from sdpkern._deprecation import DEPRECATED_IN, REMOVED_IN

ROOT = Path(__file__).resolve().parents[1]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def test_the_scheme_brackets_the_version() -> None:
    assert _version(DEPRECATED_IN) <= _version(sdpkern.__version__) < _version(REMOVED_IN)
    assert _version(REMOVED_IN)[0] == 0  # 0.x: a minor release removes what the previous deprecated


def _triggers() -> list[tuple[str, object]]:
    X = np.random.default_rng(0).normal(size=(20, 2))
    y = (X[:, 0] > 0).astype(int)

    def cpd_lam() -> None:
        from sdpkern.estimators import CPDSVC

        CPDSVC(lam=0.5).fit(X, y)

    def cpd_converged() -> None:
        from sdpkern.estimators import CPDSVC

        _ = CPDSVC().fit(X, y).converged_

    def solve_eps() -> None:
        from sdpkern.builders.cpd_svm import hinge_dual

        hinge_dual(X, y).solve(eps=1e-7)

    def krylov_maxiter() -> None:
        from sdpkern.native.krylov import cg

        cg(np.eye(3), np.ones(3), maxiter=3)

    def builder_lam() -> None:
        from sdpkern.builders.cpd_svm import squared_hinge

        squared_hinge(X, y, lam=0.5)

    def module_alias() -> None:
        sys.modules.pop("sdpkern.cli", None)
        importlib.import_module("sdpkern.cli")

    def sdpm_kernel_degree() -> None:
        from sdpkern.estimators import SDPMClassifier

        SDPMClassifier(kernel="poly", kernel_degree=2)._kernel_degree()

    def offset_attribute() -> None:
        from sdpkern.estimators import HyperkernelSVC

        _ = HyperkernelSVC(solver="conic").fit(X[:12], y[:12]).offset_

    return [(f.__name__, f) for f in (cpd_lam, cpd_converged, solve_eps, krylov_maxiter, builder_lam, module_alias,
                                       sdpm_kernel_degree, offset_attribute)]  # fmt: skip


@pytest.mark.parametrize(("name", "trigger"), _triggers(), ids=[n for n, _ in _triggers()])
def test_every_deprecation_names_the_scheme(name: str, trigger) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trigger()
    future = [str(w.message) for w in caught if issubclass(w.category, FutureWarning)]
    assert future, f"{name} did not warn"
    for msg in future:
        assert f"since sdpkern {DEPRECATED_IN}" in msg and f"removed in {REMOVED_IN}" in msg, msg


def test_no_message_names_a_release_that_does_not_exist() -> None:
    """Version numbers in the package's deprecation texts: none of 1.x while the package is 0.x."""
    bad = []
    pattern = re.compile(r"(sdpkern|since|removed in|until)\s+1\.\d")
    for path in (ROOT / "sdpkern").rglob("*.py"):
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{k}: {line.strip()}")
    for path in [ROOT / "docs" / "conventions.md", ROOT / "pyproject.toml"]:
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{k}: {line.strip()}")
    assert not bad, "\n".join(bad)


def test_the_docs_experiments_snippet_raises_no_deprecation() -> None:
    """docs/experiments.md's parameter grid used the deprecated `lam` (40 FutureWarnings a run)."""
    text = (ROOT / "docs" / "experiments.md").read_text(encoding="utf-8")
    grid = eval(re.search(r"param_grid=(\{.*?\}\})", text).group(1))  # noqa: S307 (our own docs)
    from sdpkern.estimators import PrimalSVC, ThinPlateSVC

    X = np.random.default_rng(1).normal(size=(30, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        for est, params in ((PrimalSVC(kernel="rbf"), grid["primal"]), (ThinPlateSVC(), grid["tps"])):
            for key, values in params.items():
                for v in values:
                    est.set_params(**{key: v}).fit(X, y)
