"""The one SMO core (sdpkern.native.svm_core) against independent routes.

* every libsvm problem type against scikit-learn's libsvm (``SVC``, ``NuSVC``, ``OneClassSVM``,
  ``SVR``, ``NuSVR`` with ``kernel="precomputed"``), unweighted and with sample weights, on three
  data sets: the dual objective of each solution, computed by one formula from its expansion
  coefficients, agrees to 1e-7 relative at tol 1e-8 (both solvers stop on libsvm's rule, so the
  objectives differ by O(tol²)); the offsets to 1e-5;
* the squared-hinge L2-SVC against Chapelle's primal Newton method (strong duality: the dual
  optimum is minus the primal one) and repeated points;
* the working-set decomposition, shrinking, the warm start and the AVX2 passes against the plain
  solve: the same optimum;
* bad input: typed errors naming the argument.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, make_moons
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR, NuSVC, NuSVR, OneClassSVM

from sdpkern import _svmcore
from sdpkern.errors import DataError, LabelError, NotPSDError, ParameterError
from sdpkern.kernels import Gaussian
from sdpkern.kernels.gram import KernelGram, PrecomputedGram
from sdpkern.native import svm_core
from sdpkern.native.primal_svm import primal_svm_kernel

TOL = 1e-8
REL = 1e-7


def _classification(name: str) -> tuple[np.ndarray, np.ndarray, float]:
    if name == "moons":
        X, y = make_moons(240, noise=0.3, random_state=0)
    elif name == "cancer":
        ds = load_breast_cancer()
        X, y = ds.data[:260], ds.target[:260]
    else:  # "blobs": overlapping Gaussian clouds in 5 dimensions, unbalanced
        rng = np.random.default_rng(3)
        X = np.vstack([rng.normal(size=(150, 5)), rng.normal(0.8, 1.0, size=(80, 5))])
        y = np.r_[np.zeros(150), np.ones(80)]
    X = StandardScaler().fit_transform(X)
    return X, np.where(y > 0, 1.0, -1.0), 1.0 / X.shape[1]


def _regression(name: str) -> tuple[np.ndarray, np.ndarray, float]:
    if name == "diabetes":
        ds = load_diabetes()
        X, z = ds.data[:250], ds.target[:250]
        z = (z - z.mean()) / z.std()
    elif name == "sine":
        rng = np.random.default_rng(1)
        X = rng.uniform(-3, 3, size=(220, 1))
        z = np.sin(X[:, 0]) + 0.2 * rng.normal(size=220)
    else:  # "friedman": a smooth target of 4 of 6 features
        rng = np.random.default_rng(2)
        X = rng.uniform(size=(230, 6))
        z = np.sin(np.pi * X[:, 0] * X[:, 1]) + 2 * (X[:, 2] - 0.5) ** 2 + X[:, 3] + 0.1 * rng.normal(size=230)
    X = StandardScaler().fit_transform(X)
    return X, z, 1.0 / X.shape[1]


def _weights(n: int, weighted: bool) -> np.ndarray | None:
    return np.random.default_rng(n).uniform(0.2, 3.0, size=n) if weighted else None


def _coef(model, n: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    c = np.zeros(n)
    c[model.support_] = model.dual_coef_[0]
    return c


def _close(ours: float, theirs: float) -> None:
    assert abs(ours - theirs) <= REL * max(1.0, abs(theirs)), (ours, theirs)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", ["moons", "cancer", "blobs"])
def test_classifiers_match_libsvm(name, weighted):
    X, y, g = _classification(name)
    n = X.shape[0]
    K = Gaussian(gamma=g)(X)
    w = _weights(n, weighted)
    for C in (0.5, 20.0):
        ours = svm_core.solve_csvc(KernelGram(Gaussian(gamma=g), X), y, C, sample_weight=w, tol=TOL)
        ref = SVC(kernel="precomputed", C=C, tol=TOL).fit(K, y, sample_weight=w)
        c = _coef(ref, n)
        assert ours.status == "optimal" and ours.certificate["value"] <= TOL
        _close(ours.objective, 0.5 * c @ K @ c - np.abs(c).sum())
        assert abs(ours.intercept - ref.intercept_[0]) <= 1e-5
        np.testing.assert_allclose(ours.outputs, K @ ours.dual_coef, atol=1e-9 * np.abs(ours.dual_coef).sum())
    wsum = n if w is None else float(w.sum())
    for nu in (0.2, 0.6):
        ours = svm_core.solve_nusvc(KernelGram(Gaussian(gamma=g), X), y, nu, sample_weight=w, tol=TOL)
        ref = NuSVC(kernel="precomputed", nu=nu, tol=TOL).fit(K, y, sample_weight=w)
        c = _coef(ref, n)
        a = np.abs(c) * (nu * wsum / np.abs(c).sum())  # the ν-problem's α (eᵀα = ν Σw) from libsvm's c = yα/r
        assert ours.status == "optimal"
        _close(ours.objective, 0.5 * (y * a) @ K @ (y * a))
        assert abs(ours.intercept - ref.intercept_[0]) <= 1e-5 * max(1.0, abs(ref.intercept_[0]))
        f_ref = K @ c + ref.intercept_[0]  # (the coefficients themselves are determined less well)
        np.testing.assert_allclose(ours.outputs + ours.intercept, f_ref, atol=1e-4 * max(1.0, np.abs(f_ref).max()))
    ours = svm_core.solve_one_class(KernelGram(Gaussian(gamma=g), X), 0.3, sample_weight=w, tol=TOL)
    ref = OneClassSVM(kernel="precomputed", nu=0.3, tol=TOL).fit(K, sample_weight=w)
    c = _coef(ref, n)
    _close(ours.objective, 0.5 * c @ K @ c)
    assert abs(-ours.intercept - ref.offset_[0]) <= 1e-5 * max(1.0, abs(ref.offset_[0]))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", ["diabetes", "sine", "friedman"])
def test_regressions_match_libsvm(name, weighted):
    X, z, g = _regression(name)
    n = X.shape[0]
    K = Gaussian(gamma=g)(X)
    w = _weights(n, weighted)
    for C, eps in ((1.0, 0.1), (10.0, 0.3)):
        ours = svm_core.solve_epsilon_svr(KernelGram(Gaussian(gamma=g), X), z, C, eps, sample_weight=w, tol=TOL)
        ref = SVR(kernel="precomputed", C=C, epsilon=eps, tol=TOL).fit(K, z, sample_weight=w)
        c = _coef(ref, n)
        assert ours.status == "optimal" and ours.alpha.shape == (2 * n,)
        _close(ours.objective, 0.5 * c @ K @ c - z @ c + eps * np.abs(c).sum())
        assert abs(ours.intercept - ref.intercept_[0]) <= 1e-5 * max(1.0, abs(ref.intercept_[0]))
    for C, nu in ((1.0, 0.3), (5.0, 0.7)):
        ours = svm_core.solve_nu_svr(KernelGram(Gaussian(gamma=g), X), z, C, nu, sample_weight=w, tol=TOL)
        ref = NuSVR(kernel="precomputed", C=C, nu=nu, tol=TOL).fit(K, z, sample_weight=w)
        c = _coef(ref, n)
        assert ours.status == "optimal"
        _close(ours.objective, 0.5 * c @ K @ c - z @ c)
        # ρ is the mean level of the free variables' gradients, each exact to about tol·(their number)
        assert abs(ours.intercept - ref.intercept_[0]) <= 1e-4 * max(1.0, abs(ref.intercept_[0]))
        assert ours.certificate["epsilon"] >= 0.0


@pytest.mark.parametrize("name", ["moons", "cancer", "blobs"])
def test_l2svc_is_the_primal_newton_optimum(name):
    X, y, g = _classification(name)
    w = _weights(X.shape[0], name != "moons")
    for C in (0.1, 10.0):
        ours = svm_core.solve_l2svc(KernelGram(Gaussian(gamma=g), X), y, C, sample_weight=w, tol=TOL)
        ref = primal_svm_kernel(KernelGram(Gaussian(gamma=g), X), y, C, sample_weight=w)
        assert ours.status == "optimal" and ref.converged
        _close(-ours.objective, ref.objective)  # strong duality
        f = ours.outputs + ours.intercept
        np.testing.assert_allclose(f, ref.outputs, atol=1e-5 * max(1.0, np.abs(ref.outputs).max()))


def test_weights_are_repeated_points():
    X, y, g = _classification("moons")
    rng = np.random.default_rng(0)
    w = rng.integers(0, 3, size=X.shape[0]).astype(float)
    rep = np.repeat(np.arange(X.shape[0]), w.astype(int))
    K = Gaussian(gamma=g)(X)
    for solve in (lambda K_, y_, w_: svm_core.solve_csvc(K_, y_, 3.0, sample_weight=w_, tol=TOL),
                  lambda K_, y_, w_: svm_core.solve_l2svc(K_, y_, 3.0, sample_weight=w_, tol=TOL)):  # fmt: skip
        a = solve(PrecomputedGram(K), y, w)
        b = solve(PrecomputedGram(K[np.ix_(rep, rep)]), y[rep], None)
        _close(a.objective, b.objective)
        assert abs(a.intercept - b.intercept) <= 1e-5


@pytest.mark.parametrize("problem", ["csvc", "l2svc", "nusvc", "one_class", "epsilon_svr", "nu_svr"])
def test_decomposition_shrinking_and_warm_start_reach_the_same_optimum(problem):
    X, y, g = _classification("blobs")
    z = X[:, 0] + np.sin(X[:, 1])
    n = X.shape[0]
    args = {"csvc": (y, 2.0), "l2svc": (y, 2.0), "nusvc": (y, 0.4), "one_class": (0.3,),
            "epsilon_svr": (z, 2.0, 0.2), "nu_svr": (z, 2.0, 0.4)}[problem]  # fmt: skip
    solve = getattr(svm_core, f"solve_{problem}")

    def run(**kw):  # type: ignore[no-untyped-def]
        return solve(KernelGram(Gaussian(gamma=g), X), *args, tol=TOL, **kw)

    plain = run()
    assert plain.status == "optimal"
    ws = run(working_set=60)  # n = 230: several rounds of 60 (and the support) points
    assert ws.status == "optimal" and ws.qp is not None and ws.qp.rounds > 1
    unshrunk = run(shrinking=False)
    warm = run(alpha0=plain.alpha * 0.9)  # infeasible for the sums: made feasible first
    for other in (ws, unshrunk, warm):
        _close(other.objective, plain.objective)
        np.testing.assert_allclose(other.outputs + other.intercept, plain.outputs + plain.intercept,
                                   atol=1e-4 * max(1.0, np.abs(plain.outputs).max()))  # fmt: skip
    hot = run(alpha0=plain.alpha)  # started at the optimum: certified without a step
    assert hot.status == "optimal" and hot.n_iter == 0 and hot.objective == pytest.approx(plain.objective, rel=1e-12)
    assert n == 230


def test_a_warm_start_with_its_outputs_computes_no_column_for_them():
    # solve_qp(outputs0=K u at alpha0), through solve_nu_svr: the start's gradient from the given
    # outputs instead of K's columns. From a loose solution's point and its outputs the solve
    # reaches the same optimum as from the point alone (objective 1e-12 relative; outputs 1e-6 of
    # their largest: the two starts' gradients differ in the last bits, so the SMO's paths differ
    # within its tolerance, 6e-9 measured). Started at the optimum with its outputs, the solve
    # certifies it with at most the two columns of one pair, where without them it computes the
    # support's. outputs0 for a start that making it feasible moved are not used (the same result
    # as without them)
    X, y, g = _classification("blobs")
    z = X[:, 0] + np.sin(X[:, 1])
    loose = svm_core.solve_nu_svr(KernelGram(Gaussian(gamma=g), X), z, 2.0, 0.4, tol=1e-1)
    a, b = (svm_core.solve_nu_svr(KernelGram(Gaussian(gamma=g), X), z, 2.0, 0.4, tol=TOL, alpha0=loose.alpha,
                                  outputs0=out) for out in (loose.outputs, None))  # fmt: skip
    assert a.status == b.status == "optimal" and a.n_iter > 0
    assert a.objective == pytest.approx(b.objective, rel=1e-12)
    np.testing.assert_allclose(a.outputs, b.outputs, rtol=0, atol=1e-6 * np.abs(b.outputs).max())
    columns = []
    for out in (b.outputs, None):
        K = KernelGram(Gaussian(gamma=g), X)
        hot = svm_core.solve_nu_svr(K, z, 2.0, 0.4, tol=TOL, alpha0=b.alpha, outputs0=out)
        assert hot.status == "optimal" and hot.n_iter == 0
        columns.append(K.columns_computed)
    support = int(np.count_nonzero(b.dual_coef))
    assert columns[0] <= 2 and columns[1] >= support > 2
    moved = svm_core.solve_nu_svr(KernelGram(Gaussian(gamma=g), X), z, 2.0, 0.4, tol=TOL, alpha0=0.9 * loose.alpha,
                                  outputs0=loose.outputs)  # fmt: skip
    assert moved.objective == pytest.approx(b.objective, rel=1e-9)
    with pytest.raises(DataError, match="outputs0"):
        svm_core.solve_qp(KernelGram(Gaussian(gamma=g), X), np.ones(X.shape[0]), -np.ones(X.shape[0]), 1.0,
                          np.zeros(X.shape[0]), outputs0=np.zeros(3))  # fmt: skip


def test_avx2_and_baseline_passes_agree():
    # the pair step's selection and update as AVX2 passes over every variable and as the
    # baseline's index-list loops: one pair rule (libsvm's WSS2; the ν-forms within each class,
    # Solver_NU), so the same optimum and, but where two candidates' scores tie to round-off, the
    # same pairs: the step counts agree to 1 %. Mode 1 (C-SVC, ε-SVR) and mode 2 (ν-SVC, ν-SVR,
    # whose α and α* are two blocks over one kernel)
    X, y, g = _classification("cancer")
    if not _svmcore.simd():
        pytest.skip("no AVX2 on this CPU")
    out = {}
    try:
        for avx2 in (True, False):
            _svmcore.simd(avx2)
            out[avx2] = (svm_core.solve_csvc(KernelGram(Gaussian(gamma=g), X), y, 5.0, tol=TOL),
                         svm_core.solve_epsilon_svr(KernelGram(Gaussian(gamma=g), X), X[:, 0], 5.0, 0.1, tol=TOL),
                         svm_core.solve_nusvc(KernelGram(Gaussian(gamma=g), X), y, 0.3, tol=TOL),
                         svm_core.solve_nu_svr(KernelGram(Gaussian(gamma=g), X), X[:, 0], 5.0, 0.4, tol=TOL))
    finally:
        _svmcore.simd(True)
    for a, b in zip(out[True], out[False]):
        assert a.status == b.status == "optimal"
        _close(a.objective, b.objective)
        assert abs(a.n_iter - b.n_iter) <= 0.01 * b.n_iter


@pytest.mark.parametrize("case", ["l2", "box", "two_blocks", "step_cap"])
@pytest.mark.parametrize("name", ["moons", "cancer", "blobs"])
def test_coordinate_steps_fused_pass_gives_the_two_loops_bits(name, case):
    # mode 0 (no equality constraint: the hyperkernel L2-SVM's K + 1 with D = 1/(C w)): with AVX2
    # a step's update of v and the next step's choice are one pass; the baseline runs the two
    # index-list loops. The same arithmetic in the same order, so the same steps and bits: with
    # no upper bound, a box, two variables per point (l = 2n), and a cap on the steps that stops
    # between a step and its update
    X, y, g = _classification(name)
    if not _svmcore.simd():
        pytest.skip("no AVX2 on this CPU")
    n = X.shape[0]
    K = PrecomputedGram(Gaussian(gamma=g)(X) + 1.0)
    if case == "two_blocks":
        args = (np.concatenate([y, -y]), np.concatenate([-np.ones(n), 0.3 * np.ones(n)]), 2.0, np.zeros(2 * n))
        kw: dict[str, object] = {}
    else:
        args = (y, -np.ones(n), 1.0 if case == "box" else np.inf, np.zeros(n))
        kw = {"D": None if case == "box" else 0.5, "max_iter": 37 if case == "step_cap" else None}
    out = {}
    try:
        for avx2 in (True, False):
            _svmcore.simd(avx2)
            out[avx2] = svm_core.solve_qp(K, *args, constraints="none", tol=TOL, **kw)  # type: ignore[arg-type]
    finally:
        _svmcore.simd(True)
    a, b = out[True], out[False]
    assert a.status == b.status == ("iteration_limit" if case == "step_cap" else "optimal")
    assert a.n_iter == b.n_iter
    np.testing.assert_array_equal(a.alpha, b.alpha)
    np.testing.assert_array_equal(a.grad, b.grad)


@pytest.mark.parametrize("name", ["moons", "cancer", "blobs"])
@pytest.mark.parametrize("C, box", [(10.0, False), (1.0, False), (0.1, False), (1.0, True)])
def test_over_relaxed_coordinate_steps_reach_the_plain_steps_optimum(name, C, box):
    # constraints="none" (the squared hinge with its offset penalised: K + 1 and D = 1/(2C); or the
    # hinge's box without an offset): the steps over-relaxed by RELAXATION and the plain steps
    # (relaxation=1) stop at the same KKT violation, so at the same optimum; measured 0-9e-16
    # apart in the objective. The squared hinge's optimum is also the primal Newton method's with
    # no offset column (a second route; measured 0-3e-14). From C = 1 on, the over-relaxed steps
    # are fewer (1.3-1.9 times, measured); at C = 0.1, where D dominates Q's diagonal, the plain
    # steps are already few and over-relaxation took 0-17 % more, so no count is asserted there.
    X, y, g = _classification(name)
    n = X.shape[0]
    K = Gaussian(gamma=g)(X) + 1.0
    upper, D = (1.0, 0.0) if box else (np.inf, 0.5 / C)
    assert 1.0 < svm_core.RELAXATION < 2.0
    plain, relaxed = (
        svm_core.solve_qp(PrecomputedGram(K), y, -np.ones(n), upper, np.zeros(n), D=D, constraints="none", tol=TOL,
                          relaxation=w)
        for w in (1.0, svm_core.RELAXATION)
    )  # fmt: skip
    assert plain.status == relaxed.status == "optimal"
    assert relaxed.objective == pytest.approx(plain.objective, rel=1e-12)
    np.testing.assert_allclose(relaxed.alpha, plain.alpha, atol=1e-5 * plain.alpha.max())
    if not box:
        ref = primal_svm_kernel(PrecomputedGram(K), y, C, unpenalized=np.zeros((n, 0)))
        assert ref.converged
        assert -relaxed.objective == pytest.approx(ref.objective, rel=1e-12)  # strong duality
    if C >= 1.0:
        assert relaxed.n_iter < 0.9 * plain.n_iter


@pytest.mark.parametrize("problem", ["csvc", "nusvc", "nu_svr", "l2_no_bias"])
def test_a_second_thread_gives_the_same_steps_and_bits(problem):
    # above SPLIT_MIN (4096) variables every AVX2 pass runs as two parts merged in index order,
    # the second by another thread with n_jobs=2: the same choices, so the same steps and bits as
    # one thread. Mode 1 (C-SVC), mode 2 with mixed classes (ν-SVC) and as the α/α* blocks
    # (ν-SVR, l = 2n), mode 0 (K + 1 with D, no equality constraint)
    if not _svmcore.simd():
        pytest.skip("no AVX2 on this CPU: the index-list loops run on one thread")
    rng = np.random.default_rng(7)
    m = 2100 if problem == "nu_svr" else 4200
    X = rng.normal(size=(m, 4))
    z = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + 0.3 * rng.normal(size=m)
    y = np.where(z > np.median(z), 1.0, -1.0)
    K = Gaussian(gamma=0.2)(X)

    def run(n_jobs: int) -> svm_core.SVMSolution | svm_core.QPSolution:
        if problem == "csvc":
            return svm_core.solve_csvc(PrecomputedGram(K), y, 5.0, tol=1e-4, working_set=None, n_jobs=n_jobs)
        if problem == "nusvc":
            return svm_core.solve_nusvc(PrecomputedGram(K), y, 0.3, tol=1e-4, working_set=None, n_jobs=n_jobs)
        if problem == "nu_svr":
            return svm_core.solve_nu_svr(PrecomputedGram(K), z, 5.0, 0.3, tol=1e-4, working_set=None, n_jobs=n_jobs)
        return svm_core.solve_qp(PrecomputedGram(K + 1.0), y, -np.ones(m), np.inf, np.zeros(m), D=0.2,
                                 constraints="none", tol=1e-4, working_set=None, n_jobs=n_jobs)  # fmt: skip

    one, two = run(1), run(2)
    assert one.status == two.status == "optimal"
    assert one.n_iter == two.n_iter > 100
    np.testing.assert_array_equal(one.alpha, two.alpha)


@pytest.mark.parametrize("working_set", [None, 60])
@pytest.mark.parametrize("name", ["moons", "cancer", "blobs"])
def test_objective_target_stops_once_the_objective_is_below_it(name, working_set):
    # the core tracks the objective by its exact change per pair step; the solution's objective is
    # then recomputed from α and the gradient (a second route): it is at or below the target, by
    # at most what the last step moved, and the solve took fewer steps than to the optimum. A
    # target below the optimum is never reached: the solve is the plain one.
    X, y, g = _classification(name)

    def run(target):  # type: ignore[no-untyped-def]
        K = KernelGram(Gaussian(gamma=g), X)
        return svm_core.solve_csvc(K, y, 10.0, tol=TOL, working_set=working_set, objective_target=target)

    plain = run(None)
    assert plain.status == "optimal"
    target = 0.5 * plain.objective  # the objective starts at 0 and decreases to plain's
    stopped = run(target)
    assert stopped.status == "objective_target" and stopped.n_iter < plain.n_iter
    assert stopped.objective <= target + 1e-12 * abs(target)
    assert stopped.objective > plain.objective
    assert np.all(stopped.alpha >= 0) and np.all(stopped.alpha <= 10.0) and abs(stopped.alpha @ y) <= 1e-10
    below = run(plain.objective - 1.0)
    assert below.status == "optimal" and below.n_iter == plain.n_iter and below.objective == plain.objective


def test_iteration_limit_is_reported_not_certified():
    X, y, g = _classification("cancer")
    sol = svm_core.solve_csvc(KernelGram(Gaussian(gamma=g), X), y, 100.0, max_iter=5)
    assert sol.status == "iteration_limit" and sol.n_iter == 5 and sol.certificate["value"] > 1e-3


def test_indefinite_kernel_is_a_typed_error():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)  # squared distances: indefinite
    for solve in (svm_core.solve_csvc, svm_core.solve_l2svc):
        with pytest.raises(NotPSDError, match="smallest eigenvalue -"):
            solve(PrecomputedGram(D2), y, 1.0)


def test_bad_input_raises_typed_errors():
    X, y, g = _classification("moons")
    G = KernelGram(Gaussian(gamma=g), X)
    n = X.shape[0]
    with pytest.raises(ParameterError, match="GramOperator"):
        svm_core.solve_csvc(np.eye(n), y, 1.0)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="C"):
        svm_core.solve_csvc(G, y, -1.0)
    with pytest.raises(LabelError):
        svm_core.solve_csvc(G, np.ones(n), 1.0)
    with pytest.raises(LabelError):
        svm_core.solve_nusvc(G, np.where(y > 0, 2.0, 0.0), 0.5)
    with pytest.raises(ParameterError, match="nu"):
        svm_core.solve_one_class(G, 1.5)
    with pytest.raises(ParameterError, match="nu"):
        svm_core.solve_nusvc(G, y, 0.0)
    unbalanced = np.where(np.arange(n) < 20, 1.0, -1.0)
    with pytest.raises(ParameterError, match="infeasible"):
        svm_core.solve_nusvc(G, unbalanced, 0.5)  # needs nu <= 2 * 20 / n
    with pytest.raises(DataError, match="z"):
        svm_core.solve_epsilon_svr(G, np.full(n, np.nan), 1.0)
    with pytest.raises(DataError, match="sample_weight"):
        svm_core.solve_csvc(G, y, 1.0, sample_weight=-np.ones(n))
    with pytest.raises(ParameterError, match="max_iter"):
        svm_core.solve_csvc(G, y, 1.0, max_iter=0)
    with pytest.raises(ParameterError, match="relaxation"):
        svm_core.solve_qp(G, y, -np.ones(n), np.inf, np.zeros(n), D=0.5, constraints="none", relaxation=2.0)
    with pytest.raises(DataError, match="alpha0"):
        svm_core.solve_qp(G, y, -np.ones(n), 1.0, np.full(n, 2.0))
    with pytest.raises(ParameterError, match="constraints"):
        svm_core.solve_qp(G, y, -np.ones(n), 1.0, np.zeros(n), constraints="two")  # type: ignore[arg-type]
