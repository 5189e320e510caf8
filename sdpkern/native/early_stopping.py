"""Early stopping as the regulariser of Krylov methods (002 §5.4, §6.2).

The iteration count is the regularisation parameter: MR's error first decreases then grows
(semi-convergence, 002 §5.4). Two ways to choose it:

- :func:`cv_stopping_index`: k-fold cross-validation on the training data of the validation
  loss of every iterate ``x_1 … x_max_iter`` (002 §6.2: "tuned using 10 fold cross validation of
  the training data by computing the cost function on the validation data set"). One solver
  run per fold streams its iterates through the callback, so no iterate is stored.
- :func:`discrepancy_stop`: Morozov's discrepancy principle when the noise level
  ``δ ≥ ‖y − y_true‖`` is known: stop at the first ``k`` with ``‖y − K α_k‖ ≤ τ δ``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.sparse.linalg import LinearOperator
from sklearn.model_selection import KFold, StratifiedKFold

from .._validation import DEPRECATED, check_integer, check_positive, take_deprecated
from ..errors import BreakdownError, ParameterError
from .krylov import KrylovResult, get_solver

__all__ = ["StoppingChoice", "cv_stopping_index", "discrepancy_stop", "FoldProblem"]

#: ``make_fold(train_idx, val_idx) -> (A, b, loss)``: the training system of a fold and the
#: validation loss of an iterate of that system.
FoldProblem = Callable[
    [NDArray[np.intp], NDArray[np.intp]],
    tuple["NDArray[np.float64] | LinearOperator", NDArray[np.float64], Callable[[NDArray[np.float64]], float]],
]


@dataclass(frozen=True)
class StoppingChoice:
    """The iteration count chosen by cross-validation.

    Attributes
    ----------
    n_iter : int
        The chosen count (``argmin`` of the mean validation loss; the smallest on ties).
    mean_loss : ndarray of shape (max_iter,)
        Mean validation loss of iterates ``1 … max_iter``.
    fold_loss : ndarray of shape (n_splits, max_iter)
        Per-fold losses (a fold that converged or broke down early repeats its last value).
    """

    n_iter: int
    mean_loss: NDArray[np.float64]
    fold_loss: NDArray[np.float64]


def cv_stopping_index(
    make_fold: FoldProblem,
    n_samples: int,
    *,
    method: str = "mr_ii",
    max_iter: int = 50,
    cv: int = 5,
    stratify: ArrayLike | None = None,
    random_state: int | None = 0,
) -> StoppingChoice:
    """Choose the number of Krylov iterations by k-fold cross-validation (002 §6.2).

    Parameters
    ----------
    make_fold : callable
        ``make_fold(train_idx, val_idx) -> (A, b, loss)``: the fold's training system and the
        validation loss of an iterate of it.
    n_samples : int
        Number of training points to split.
    method : str
        Krylov solver (``"cg"``, ``"mr"``, ``"cgne"``, ``"mr_ii"``).
    max_iter : int
        Largest iteration count tried (002 §6.2 tries up to 10% of the training size).
    cv : int
        Number of folds, at least 2.
    stratify : array of shape (n_samples,), optional
        Class labels for stratified folds.
    random_state : int or None
        Seed of the fold shuffle.

    Returns
    -------
    StoppingChoice
    """
    solver = get_solver(method)
    max_iter = check_integer(max_iter, "max_iter", 1)
    cv = check_integer(cv, "cv", 2)
    idx = np.arange(n_samples)
    if stratify is not None:
        labels = np.asarray(stratify)
        min_count = int(np.unique(labels, return_counts=True)[1].min())
        splitter: KFold | StratifiedKFold = StratifiedKFold(
            n_splits=min(cv, max(min_count, 2)), shuffle=True, random_state=random_state
        )
        splits = list(splitter.split(idx, labels))
    else:
        splitter = KFold(n_splits=min(cv, n_samples), shuffle=True, random_state=random_state)
        splits = list(splitter.split(idx))
    fold_loss = np.empty((len(splits), max_iter))
    for f, (tr, va) in enumerate(splits):
        A, b, loss = make_fold(tr, va)
        losses: list[float] = []

        def record(xk: NDArray[np.float64], losses: list[float] = losses, loss=loss) -> None:
            losses.append(float(loss(xk)))

        try:
            solver(A, b, max_iter=max_iter, rtol=0.0, atol=0.0, callback=record)
        except BreakdownError:
            pass  # the iterates before the breakdown are still valid candidates
        if not losses:
            losses = [float(loss(np.zeros(np.shape(b)[0])))]
        row = np.asarray(losses[:max_iter])
        fold_loss[f] = np.concatenate([row, np.full(max_iter - row.shape[0], row[-1])])
    mean = fold_loss.mean(axis=0)
    return StoppingChoice(n_iter=int(np.argmin(mean)) + 1, mean_loss=mean, fold_loss=fold_loss)


def discrepancy_stop(
    A: ArrayLike | LinearOperator,
    b: ArrayLike,
    noise_level: float,
    *,
    method: str = "mr_ii",
    tau: float = 1.1,
    max_iter: int | None = None,
    return_iterates: bool = False,
    maxiter: Any = DEPRECATED,
) -> KrylovResult:
    """Morozov's discrepancy principle: stop at the first ``k`` with ``‖b − A x_k‖ ≤ τ δ``.

    Parameters
    ----------
    A, b
        The system, as for the Krylov solvers.
    noise_level : float
        ``δ``, an upper bound on the norm of the noise in ``b``.
    method : str
        Krylov solver.
    tau : float
        Safety factor ``τ > 1``.
    max_iter : int, optional
        Iteration limit. ``result.info > 0`` if the discrepancy level was not reached.
        ``maxiter`` is its deprecated alias.
    """
    max_iter = take_deprecated("discrepancy_stop", "maxiter", maxiter, "max_iter", max_iter)
    check_positive(noise_level, "noise_level")
    tau = check_positive(tau, "tau")
    if tau <= 1.0:
        raise ParameterError(f"tau must be > 1 for the discrepancy principle, got {tau!r}")
    solver = get_solver(method)
    return solver(A, b, max_iter=max_iter, rtol=0.0, atol=tau * float(noise_level), return_iterates=return_iterates)
