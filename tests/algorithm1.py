"""000 Algorithm 1 fitted on data for the tests that check it (the library fits it through
``CPDSVC(solver="native")``, whose other steps — the separator shortcut, the β = 0 choice — these
tests must not take)."""

from __future__ import annotations

import numpy as np

from sdpkern.errors import DataError
from sdpkern.kernels.cpd import cpd_decision, polynomial_factor
from sdpkern.kernels.gram import PrecomputedGram
from sdpkern.native.cpd.newton import cpd_primal_svm


class CPDPrimalSVM:
    """000 Algorithm 1 (``cpd_primal_svm`` on the dense Φ) fitted on data, for these tests."""

    def __init__(self, kernel, C, *, beta_zero=False, update="rank_one", refactor_fraction=0.01):  # type: ignore[no-untyped-def]
        self.kernel, self.C, self.beta_zero = kernel, C, beta_zero
        self.update, self.refactor_fraction = update, refactor_fraction

    def fit(self, X, y):  # type: ignore[no-untyped-def]
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        if not np.all(np.isin(y, (-1.0, 1.0))):
            raise DataError("y must be ±1")
        self.factor_ = polynomial_factor(X, self.kernel)
        self.result_ = cpd_primal_svm(
            PrecomputedGram(self.kernel(X)), self.factor_.Q, y, self.C, beta_zero=self.beta_zero, update=self.update,
            refactor_fraction=self.refactor_fraction,
        )
        self.X_, self.alpha_, self.beta_bar_ = X, self.result_.alpha, self.result_.beta_bar
        self.beta_ = np.zeros(self.factor_.space.dim) if self.beta_zero else self.factor_.beta_from_bar(self.beta_bar_)
        self.objective_ = self.result_.objective
        return self

    def decision_function(self, X):  # type: ignore[no-untyped-def]
        return cpd_decision(self.kernel, self.X_, self.alpha_, self.factor_, self.beta_, X)
