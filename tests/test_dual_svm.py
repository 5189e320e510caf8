"""The compiled SMO dual solver (sdpkern.native.dual_svm) against independent routes.

* c.p.d. (thin-plate) SVM, squared hinge: the reduced primal Newton solver (000 eq. 14 via
  sdpkern.native.cpd_reduced) and the CVXPY builder (sdpkern.builders.cpd_svm.squared_hinge);
* hinge variant: the CVXPY primal builder (sdpkern.builders.cpd_svm.hinge_primal);
* p.d. kernels: scikit-learn's SVC(kernel="precomputed") (hinge) and Chapelle's primal Newton
  (squared hinge, sdpkern.native.primal_svm.primal_svm_kernel);
* sample weights as repeated points; bad input through the compiled path.

Tolerance: 1e-6 relative on the optimal value (the issue's acceptance), solver tol 1e-8.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC

from sdpkern.builders.cpd_svm import cpd_data, hinge_primal, squared_hinge
from sdpkern.errors import DataError, LabelError, ParameterError
from sdpkern.kernels import Gaussian
from sdpkern.kernels.cpd import ThinPlate, polynomial_factor
from sdpkern.kernels.gram import KernelGram, PrecomputedGram
from sdpkern.native.cpd import cpd_dual_svm
from sdpkern.native.cpd.workspace import cpd_primal_svm_reduced
from sdpkern.native.dual_svm import dual_svm
from sdpkern.native.primal_svm import primal_svm_kernel

REL = 1e-6


def _data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sign(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n))
    return X, y


def _kernel(d: int, order: int) -> ThinPlate:
    # order 2: r² log r with the affine functions in any d; order 3: eq. (11) with the data's d
    return ThinPlate(order=2, formula_dimension=2) if order == 2 else ThinPlate(order=3, formula_dimension=None)


def _check_cpd_model(kernel: ThinPlate, X: np.ndarray, res) -> None:  # type: ignore[no-untyped-def]
    """Pᵀα = 0 and f = Φα + Qβ̄ at the training points."""
    fac = polynomial_factor(X, kernel)
    assert np.abs(fac.Q.T @ res.alpha).max() <= 1e-8 * max(1.0, np.abs(res.alpha).max())
    f = kernel(X) @ res.alpha + fac.Q @ res.beta_bar
    np.testing.assert_allclose(res.f, f, rtol=1e-7, atol=1e-7 * np.abs(f).max())


@pytest.mark.parametrize("d,order", [(2, 2), (2, 3), (5, 2), (5, 3)])
@pytest.mark.parametrize("lam", [1e-2, 1.0])
def test_squared_hinge_matches_reduced_newton(d, order, lam):
    X, y = _data(300, d)
    kernel = _kernel(d, order)
    fac = polynomial_factor(X, kernel)
    ref = cpd_primal_svm_reduced(KernelGram(kernel, X), fac.Q, y, 1 / (2 * lam))
    res = cpd_dual_svm(KernelGram(kernel, X), fac.Q, y, 1 / (2 * lam), tol=1e-8)
    assert res.status == "optimal"
    assert abs(res.objective - ref.objective) <= REL * ref.objective
    np.testing.assert_allclose(res.f, ref.f, atol=1e-4 * max(1.0, np.abs(ref.f).max()))
    _check_cpd_model(kernel, X, res)


@pytest.mark.parametrize("d,order", [(2, 2), pytest.param(5, 3, marks=pytest.mark.slow)])
def test_both_losses_match_cvxpy(d, order):
    X, y = _data(300, d, seed=1)
    kernel = _kernel(d, order)
    lam = 0.1
    D = cpd_data(X, y, kernel)
    fac = D.factor
    sq = squared_hinge(X, y, kernel, C=1 / (2 * lam), data=D).solve(backend="clarabel")
    res = cpd_dual_svm(KernelGram(kernel, X), fac.Q, y, 1 / (2 * lam), tol=1e-8)
    assert abs(res.objective - sq.objective) <= REL * sq.objective
    hp = hinge_primal(X, y, kernel, C=1 / (2 * lam), data=D).solve(backend="clarabel")
    rh = cpd_dual_svm(KernelGram(kernel, X), fac.Q, y, 1 / (2 * lam), loss="hinge", tol=1e-8)
    assert rh.status == "optimal"
    assert abs(rh.objective - hp.objective) <= REL * hp.objective
    _check_cpd_model(kernel, X, rh)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_hinge_matches_sklearn_precomputed(C):
    X, y = _data(200, 2, seed=2)
    K = Gaussian(gamma=0.5)(X)
    ref = SVC(kernel="precomputed", C=C, tol=1e-10).fit(K, y)
    c = np.zeros(200)
    c[ref.support_] = ref.dual_coef_[0]
    f_ref = K @ c + ref.intercept_[0]
    p_ref = 0.5 * c @ K @ c + C * np.maximum(0.0, 1.0 - y * f_ref).sum()
    res = dual_svm(PrecomputedGram(K), y, C, tol=1e-8)
    assert res.status == "optimal"
    assert abs(res.objective - p_ref) <= REL * p_ref
    assert res.certificate["duality_gap"] <= 1e-8
    assert abs(res.dual_coef.sum()) <= 1e-10 * C * 200
    # the same primal optimum from the kernel evaluated column by column by the compiled core
    res2 = dual_svm(KernelGram(Gaussian(gamma=0.5), X), y, C, tol=1e-8)
    assert abs(res2.objective - p_ref) <= REL * p_ref


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_shrinking_reaches_the_optimum_without_shrinking(loss):
    # libsvm's shrinking (active points re-sorted after each shrink) and the plain SMO loop over
    # every point: the same optimum, and both at sklearn's (hinge) to 1e-6 relative
    X, y = _data(1500, 2, seed=4)
    K = KernelGram(Gaussian(gamma=2.0), X)
    shrunk = dual_svm(K, y, 10.0, loss=loss, tol=1e-8, shrinking=True)
    plain = dual_svm(KernelGram(Gaussian(gamma=2.0), X), y, 10.0, loss=loss, tol=1e-8, shrinking=False)
    assert shrunk.status == plain.status == "optimal"
    assert abs(shrunk.objective - plain.objective) <= REL * plain.objective
    if loss == "hinge":
        Kd = Gaussian(gamma=2.0)(X)
        ref = SVC(kernel="precomputed", C=10.0, tol=1e-10).fit(Kd, y)
        c = np.zeros(1500)
        c[ref.support_] = ref.dual_coef_[0]
        f_ref = Kd @ c + ref.intercept_[0]
        p_ref = 0.5 * c @ Kd @ c + 10.0 * np.maximum(0.0, 1.0 - y * f_ref).sum()
        assert abs(shrunk.objective - p_ref) <= REL * p_ref


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("cpd", [False, True])
def test_vector_passes_reach_the_index_list_loops_optimum(loss, cpd):
    # the SMO step's two passes as AVX2 vector loops over every point (shrunk ones flagged) and as
    # the baseline's loops over the list of active points (sdpkern._svmcore): the same optimum
    # to 1e-6 relative, both certified; n = 1501 (not a multiple of the 4 lanes), enough points
    # and steps for shrinking; thin-plate (cpd): K + ρVVᵀ folded, the loops see no V
    from sdpkern import _svmcore

    if not _svmcore.simd():
        pytest.skip("no AVX2 on this CPU: only the index-list loops run")
    X, y = _data(1501, 2, seed=5)
    res = {}
    try:
        for avx2 in (True, False):
            _svmcore.simd(avx2)
            if cpd:
                kernel = ThinPlate(order=2, formula_dimension=2)
                Q = polynomial_factor(X, kernel).Q
                res[avx2] = cpd_dual_svm(KernelGram(kernel, X), Q, y, 10.0, loss=loss, tol=1e-6).dual
            else:
                res[avx2] = dual_svm(KernelGram(Gaussian(gamma=2.0), X), y, 10.0, loss=loss, tol=1e-6)
    finally:
        _svmcore.simd(True)
    assert res[True].status == res[False].status == "optimal"
    assert abs(res[True].objective - res[False].objective) <= REL * abs(res[False].objective)
    np.testing.assert_allclose(res[True].outputs, res[False].outputs, atol=1e-3)


def test_constraint_basis_and_fold_of_the_reduced_kernel():
    # V (range Q minus the constant, by a Householder reflection of the orthonormal Q) against the
    # pivoted QR route it replaced; K_Ξ + ρVVᵀ folded into the correction's right factor (its
    # coordinates read off the Lagrange basis) against the dense sum, entry by entry
    from sdpkern.kernels.gram import reduced_gram
    from sdpkern.native.dual_svm import _constraints, _fold, _fold_coordinates

    X, _ = _data(130, 3, seed=11)
    kernel = ThinPlate(order=2, formula_dimension=2)
    Q = polynomial_factor(X, kernel).Q
    cons = _constraints(Q, False, 130)
    one = np.ones(130) / np.sqrt(130)
    assert cons.pair and cons.V.shape == (130, 3)
    np.testing.assert_allclose(cons.V.T @ cons.V, np.eye(3), atol=1e-13)
    np.testing.assert_allclose(cons.V.T @ one, 0.0, atol=1e-13)
    basis = np.column_stack([one, cons.V])  # spans range Q: its projector is QQᵀ
    np.testing.assert_allclose(basis @ basis.T, Q @ Q.T, atol=1e-12)
    W = Q - np.outer(one, one @ Q)
    Qw = np.linalg.svd(W, full_matrices=False)[0][:, :3]  # range W (rank 3), as the pivoted QR found it
    np.testing.assert_allclose(Qw @ Qw.T, cons.V @ cons.V.T, atol=1e-12)
    K = reduced_gram(kernel, X, Q)
    G = next(_fold_coordinates(K, K.spec.left, cons.V))  # read off ℓ: no least squares
    np.testing.assert_allclose(K.spec.left @ G, cons.V, atol=1e-12)
    rho = 7.0
    folded = _fold(K, cons.V, rho)
    assert folded is not None and folded.spec.left.shape == K.spec.left.shape  # no extra width
    cols = np.array([0, 5, 129], dtype=np.intp)
    dense = K.to_dense() + rho * cons.V @ cons.V.T
    np.testing.assert_allclose(folded.columns(cols), dense[:, cols], rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(folded.diagonal(), np.diag(dense), rtol=1e-12, atol=1e-10)


def test_squared_hinge_matches_primal_newton_with_offset():
    X, y = _data(250, 3, seed=3)
    K = Gaussian(gamma=0.3)(X)
    ref = primal_svm_kernel(PrecomputedGram(K), y, 2.0)
    res = dual_svm(PrecomputedGram(K), y, 2.0, loss="squared_hinge", tol=1e-8)
    assert abs(res.objective - ref.objective) <= REL * ref.objective
    assert abs(res.intercept - ref.intercept) <= 1e-5 * max(1.0, abs(ref.intercept))


def test_sample_weight_is_repeated_points():
    X, y = _data(120, 2, seed=4)
    w = np.ones(120)
    w[:30] = 2.0
    K = Gaussian(gamma=0.5)(X)
    rep = np.r_[np.arange(120), np.arange(30)]
    for loss in ("hinge", "squared_hinge"):
        a = dual_svm(PrecomputedGram(K), y, 1.0, loss=loss, sample_weight=w, tol=1e-9)
        b = dual_svm(PrecomputedGram(K[np.ix_(rep, rep)]), y[rep], 1.0, loss=loss, tol=1e-9)
        assert abs(a.objective - b.objective) <= REL * b.objective
        np.testing.assert_allclose(a.outputs, b.outputs[:120], atol=1e-4)


def test_duplicate_points_same_optimum_as_newton():
    X, y = _data(150, 2, seed=5)
    X, y = np.vstack([X, X[:20]]), np.r_[y, y[:20]]
    kernel = ThinPlate(2)
    fac = polynomial_factor(X, kernel)
    ref = cpd_primal_svm_reduced(KernelGram(kernel, X), fac.Q, y, 10.0)
    res = cpd_dual_svm(KernelGram(kernel, X), fac.Q, y, 10.0, tol=1e-8)
    assert abs(res.objective - ref.objective) <= REL * ref.objective


def test_iteration_limit_is_reported():
    X, y = _data(200, 2, seed=6)
    res = dual_svm(KernelGram(Gaussian(gamma=0.5), X), y, 100.0, max_iter=5)
    assert res.status == "iteration_limit"
    assert res.n_iter == 5
    assert res.certificate["kkt_violation"] > 1e-3


def test_bad_input_typed_errors():
    X, y = _data(40, 2, seed=7)
    G = KernelGram(Gaussian(gamma=0.5), X)
    with pytest.raises(LabelError, match="two classes"):
        dual_svm(G, np.ones(40), 1.0)
    with pytest.raises(LabelError, match="-1/\\+1"):
        dual_svm(G, np.where(y > 0, 1.0, 0.0), 1.0)
    yn = y.copy()
    yn[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        dual_svm(G, yn, 1.0)
    with pytest.raises(DataError, match="rank 1 < 2"):
        dual_svm(G, y, 1.0, unpenalized=np.column_stack([np.ones(40), 2.0 * np.ones(40)]))
    with pytest.raises(DataError, match="NaN"):
        dual_svm(G, y, 1.0, unpenalized=np.full((40, 1), np.nan))
    with pytest.raises(DataError, match="shape"):
        dual_svm(G, y, 1.0, unpenalized=np.ones((39, 1)))
    with pytest.raises(ParameterError, match="loss"):
        dual_svm(G, y, 1.0, loss="logistic")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="C"):
        dual_svm(G, y, -1.0)
    with pytest.raises(ParameterError, match="GramOperator"):
        dual_svm(np.eye(40), y, 1.0)  # type: ignore[arg-type]
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        dual_svm(KernelGram(Gaussian(gamma=0.5), Xn), y, 1.0)


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
def test_polish_ends_exact(loss):
    """The closing Newton step on SMO's active set: KKT to round-off at libsvm's default tol."""
    X, y = _data(300, 2, seed=8)
    kernel = ThinPlate(2)
    fac = polynomial_factor(X, kernel)
    loose = cpd_dual_svm(KernelGram(kernel, X), fac.Q, y, 0.5, loss=loss, tol=1e-3)
    exact = cpd_dual_svm(KernelGram(kernel, X), fac.Q, y, 0.5, loss=loss, tol=1e-3, polish=True)
    tight = cpd_dual_svm(KernelGram(kernel, X), fac.Q, y, 0.5, loss=loss, tol=1e-9)
    assert loose.dual.certificate["kkt_violation"] > 1e-6  # SMO alone stops at tol
    assert exact.dual.certificate["polished"] == 1.0
    assert exact.dual.certificate["kkt_violation"] <= 1e-9
    assert abs(exact.objective - tight.objective) <= REL * tight.objective


def test_estimators_auto_route_matches_newton():
    """ThinPlateSVC(solver="auto") (the dual SMO) and solver="reduced" (Newton): one optimum."""
    from sdpkern.estimators import ThinPlateSVC

    X, y = _data(300, 2, seed=9)
    a = ThinPlateSVC(C=5.0, beta_zero=False).fit(X, y)
    b = ThinPlateSVC(C=5.0, beta_zero=False, solver="reduced").fit(X, y)
    assert a.status_ == "optimal" and a.certificate_["value"] < 1e-8
    assert abs(a.objective_ - b.objective_) <= REL * b.objective_
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-5)


def test_auto_route_large_n_takes_the_dual_and_falls_back_when_uncertified(monkeypatch):
    """dim 𝒫 = 21 (d = 20) on 2000 points: "auto" runs the dual SMO and reaches the reduced
    Newton optimum to 1e-6 relative; a dual result that is not certified optimal is replaced by
    the Newton route's."""
    from sklearn.exceptions import ConvergenceWarning

    from sdpkern.estimators import ThinPlateSVC
    from sdpkern.native.cpd import workspace as cpd_est

    X, y = _data(2000, 20, seed=10)
    calls = []

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        out = cpd_dual_svm(*args, **kwargs)
        calls.append(out)
        return out

    monkeypatch.setattr(cpd_est, "cpd_dual_svm", counted)
    a = ThinPlateSVC(C=5.0, beta_zero=False).fit(X, y)
    b = ThinPlateSVC(C=5.0, beta_zero=False, solver="reduced").fit(X, y)
    assert len(calls) == 1 and calls[0].status == "optimal"
    assert (a.solver_, b.solver_) == ("dual", "reduced") and a.status_ == b.status_ == "optimal"
    assert abs(a.objective_ - b.objective_) <= REL * b.objective_

    def uncertified(*args, **kwargs):  # type: ignore[no-untyped-def]
        out = cpd_dual_svm(*args, **kwargs)
        out.dual.status = "iteration_limit"
        out.objective = 2.0 * out.objective  # a wrong value, to see that it is not the one kept
        return out

    monkeypatch.setattr(cpd_est, "cpd_dual_svm", uncertified)
    c = ThinPlateSVC(C=5.0, beta_zero=False).fit(X, y)
    assert c.status_ == "optimal" and c.solver_ == "reduced"
    assert abs(c.objective_ - b.objective_) <= REL * b.objective_
    with pytest.warns(ConvergenceWarning, match="dual route returned status 'iteration_limit'"):
        d = ThinPlateSVC(C=5.0, beta_zero=False, solver="dual").fit(X, y)  # keeps and reports what the dual gave
    assert d.status_ == "iteration_limit" and d.solver_ == "dual"


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_indefinite_kernel_is_a_typed_error_not_a_crash(loss):
    """Negative curvature in the compiled loop: NotPSDError with the smallest eigenvalue."""
    from sdpkern.errors import NotPSDError

    X, y = _data(60, 2, seed=10)
    D2 = ((X[:, None, :] - X[None]) ** 2).sum(-1)  # squared distances: indefinite
    with pytest.raises(NotPSDError, match="smallest eigenvalue -.*repair_spectrum"):
        dual_svm(PrecomputedGram(D2), y, 1.0, loss=loss)


@pytest.mark.parametrize("cpd", [False, True])
def test_columns_computed_ahead_change_no_bit(cpd):
    # SMO computes the columns its next steps are likely to ask for in batches (sdpkern._svmcore.
    # ahead) when a column is read from at least 16 numbers per point: only which columns are
    # cached, and when, may differ, so the solve is the same bits with and without it. Thin-plate
    # in d = 6 (6 + 2·7 numbers per point, K + ρVVᵀ folded) and a Gaussian in d = 20; the
    # certificate counts the batches' columns: taken, and most of them then asked for by SMO
    from sdpkern import _svmcore

    X, y = _data(700, 6 if cpd else 20, seed=3)
    kernel = ThinPlate(order=2, formula_dimension=2) if cpd else Gaussian(gamma=0.05)
    res = {}
    try:
        for on in (True, False):
            _svmcore.ahead(on)
            K = KernelGram(kernel, X)
            if cpd:
                res[on] = cpd_dual_svm(K, polynomial_factor(X, kernel).Q, y, 10.0, tol=1e-3).dual
            else:
                res[on] = dual_svm(K, y, 10.0, loss="squared_hinge", tol=1e-3)
    finally:
        _svmcore.ahead(True)
    a, b = res[True], res[False]
    assert a.status == b.status == "optimal" and a.n_iter == b.n_iter
    assert np.array_equal(a.alpha, b.alpha) and np.array_equal(a.outputs, b.outputs)
    assert a.certificate["primal"] == b.certificate["primal"]
    assert b.certificate["columns_ahead"] == 0 and a.certificate["columns_ahead"] > 0
    assert a.certificate["columns_ahead_used"] >= 0.5 * a.certificate["columns_ahead"]
