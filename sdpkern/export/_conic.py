"""Standard-form conic data: what the writers consume and the readers produce.

The standard form (the one SCS uses, so CVXPY hands it over almost unchanged) is

    minimise    cᵀx + offset
    subject to  b − A x ∈ K,   K = {0}^z × R₊^l × Q^{q₁} × … × S₊^{n₁} × … × K_exp^e × K_pow…

with one difference from SCS: a PSD cone of order n occupies n(n+1)/2 rows that hold the
*unscaled* lower triangle of the symmetric matrix, column by column (row for entry (i, j),
i ≥ j, is the value S_ij). SCS multiplies the off-diagonal rows by √2 (CVXPY's
``PSD_SQRT2_SCALING``); :func:`from_cvxpy` divides them back, so the writers put the matrix
entries themselves in the file (SDPA and CBF both want them unscaled).

``sign`` records the sense of the original model: its objective value is
``sign * (cᵀx + offset)`` (CVXPY compiles a ``Maximize`` into the negated minimisation).

A quadratic objective ½xᵀPx + cᵀx + offset is kept as ``P`` only for the QP formats
(:mod:`sdpkern.export.mps`); for the conic formats CVXPY writes it as an SOC epigraph.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from .. import _display
from ..errors import DataError, ExportError, ParameterError

__all__ = ["Cones", "ConicData", "Elimination", "Exported", "from_cvxpy", "to_cvxpy", "compiled_data"]

_SQRT2 = math.sqrt(2.0)


@dataclass(frozen=True)
class Cones:
    """Cone dimensions, in the order their rows appear in ``A`` and ``b``.

    Attributes
    ----------
    zero, nonneg : int
        Number of equality rows and of non-negative rows.
    soc : tuple of int
        Sizes of the second-order cones {(t, u) : t ≥ ‖u‖} (size = 1 + len(u)).
    psd : tuple of int
        Orders of the PSD cones (each takes n(n+1)/2 rows, unscaled lower triangle).
    exp : int
        Number of exponential cones (3 rows each, CVXPY's order (x, y, z): y·exp(x/y) ≤ z).
    pow : tuple of float
        The α of each 3-d power cone (3 rows each: x^α y^(1−α) ≥ ``|z|``).
    """

    zero: int = 0
    nonneg: int = 0
    soc: tuple[int, ...] = ()
    psd: tuple[int, ...] = ()
    exp: int = 0
    pow: tuple[float, ...] = ()

    @property
    def rows(self) -> int:
        """Total number of rows these cones occupy."""
        return (
            self.zero
            + self.nonneg
            + sum(self.soc)
            + sum(n * (n + 1) // 2 for n in self.psd)
            + 3 * self.exp
            + 3 * len(self.pow)
        )

    def offsets(self) -> dict[str, int]:
        """First row of each cone family (keys ``zero``, ``nonneg``, ``soc``, ``psd``, ``exp``, ``pow``)."""
        out: dict[str, int] = {}
        row = 0
        for name, size in (
            ("zero", self.zero),
            ("nonneg", self.nonneg),
            ("soc", sum(self.soc)),
            ("psd", sum(n * (n + 1) // 2 for n in self.psd)),
            ("exp", 3 * self.exp),
            ("pow", 3 * len(self.pow)),
        ):
            out[name] = row
            row += size
        return out


@dataclass
class ConicData:
    """A conic program in standard form (see the module docstring).

    Attributes
    ----------
    c : ndarray, shape (n,)
    A : scipy.sparse.csr_matrix, shape (m, n)
    b : ndarray, shape (m,)
    cones : Cones
    offset : float
        Constant added to the objective.
    sign : {1, -1}
        The original model's objective is ``sign * (cᵀx + offset)``.
    meta : dict
        Free-form information a writer or reader attaches (e.g. the elimination map).
    P : scipy.sparse.csr_matrix, shape (n, n), or None
        The quadratic objective's matrix (symmetric PSD): the objective is
        ``sign * (½xᵀPx + cᵀx + offset)``. Only the QP formats (``.mps``/``.qps``) hold it.
    """

    c: NDArray[np.float64]
    A: sp.csr_matrix
    b: NDArray[np.float64]
    cones: Cones
    offset: float = 0.0
    sign: int = 1
    meta: dict[str, Any] = field(default_factory=dict)
    P: sp.csr_matrix | None = None

    def __post_init__(self) -> None:
        self.c = np.asarray(self.c, dtype=float).ravel()
        self.b = np.asarray(self.b, dtype=float).ravel()
        self.A = sp.csr_matrix(self.A, dtype=float)
        m, n = self.A.shape
        if self.c.size != n or self.b.size != m:
            raise DataError(f"inconsistent shapes: A is {m}x{n}, c has {self.c.size}, b has {self.b.size}")
        if self.cones.rows != m:
            raise DataError(f"cones occupy {self.cones.rows} rows but A has {m}")
        if self.P is not None:
            self.P = sp.csr_matrix(self.P, dtype=float)
            if self.P.shape != (n, n):
                raise DataError(f"inconsistent shapes: P is {self.P.shape[0]}x{self.P.shape[1]}, A has {n} columns")
            if self.P.nnz == 0:
                self.P = None

    @property
    def n(self) -> int:
        """Number of variables."""
        return int(self.A.shape[1])

    def objective(self, x: NDArray[np.float64]) -> float:
        """The original model's objective value at ``x``."""
        xa = np.asarray(x, dtype=float)
        quad = 0.0 if self.P is None else 0.5 * float(xa @ (self.P @ xa))
        return float(self.sign * (quad + self.c @ xa + self.offset))

    def cone_violation(self, x: NDArray[np.float64]) -> float:
        """How far ``b − A x`` is outside the cones, relative to ``1 + ‖b‖∞``.

        The largest of: abs(equality residual), the negative part of non-negative rows, ‖u‖ − t of
        each SOC, −λ_min of each PSD block. An independent check of a solver's primal point
        (exponential and power cones are not checked).
        """
        s = self.b - self.A @ np.asarray(x, dtype=float)
        cones, off = self.cones, self.cones.offsets()
        worst = [0.0]
        if cones.zero:
            worst.append(float(np.abs(s[: cones.zero]).max()))
        if cones.nonneg:
            worst.append(float(-s[off["nonneg"] : off["nonneg"] + cones.nonneg].min()))
        row = off["soc"]
        for q in cones.soc:
            worst.append(float(np.linalg.norm(s[row + 1 : row + q]) - s[row]))
            row += q
        row = off["psd"]
        for n in cones.psd:
            k = n * (n + 1) // 2
            i, j = _lower_indices(n)
            M = np.zeros((n, n))
            M[i, j] = s[row : row + k]
            M[j, i] = s[row : row + k]
            worst.append(float(-np.linalg.eigvalsh(M)[0]))
            row += k
        return max(worst) / (1.0 + float(np.abs(self.b).max(initial=0.0)))


@dataclass
class Elimination:
    """The map from a file's variables z back to the original ones: x = x0 + T z."""

    x0: NDArray[np.float64]
    T: sp.csr_matrix

    def expand(self, z: NDArray[np.float64]) -> NDArray[np.float64]:
        """Original variables from the file's."""
        return np.asarray(self.x0 + self.T @ np.asarray(z, dtype=float), dtype=float)

    @classmethod
    def identity(cls, n: int) -> Elimination:
        """The trivial map x = z."""
        return cls(np.zeros(n), sp.identity(n, format="csr"))


@dataclass
class Exported:
    """What a writer did, so a solver's answer on the file can be mapped back.

    Attributes
    ----------
    path : Path
    format : str
        ``"sdpa"`` or ``"cbf"``.
    data : ConicData
        The standard-form problem the file encodes; its variables are the file's.
    elimination : Elimination
        Original variables from the file's: x = x0 + T z.
    original : ConicData
        The data before any elimination.
    """

    path: Path
    format: str
    data: ConicData
    elimination: Elimination
    original: ConicData

    def objective(self, z: NDArray[np.float64]) -> float:
        """The original model's objective at the file's variables ``z``."""
        return self.data.objective(z)

    # a notebook or a terminal shows a summary of the file, never its arrays
    def __repr__(self) -> str:
        rows = self.data.A.shape[0]
        return f"Exported({self.format!r}, path={str(self.path)!r}, variables={self.data.n}, rows={rows})"

    def _repr_html_(self) -> str:
        return _display.html(_display.exported(self))

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        _display.pretty(_display.exported(self), printer, cycle, repr(self))


def compiled_data(problem: cp.Problem, quadratic: bool = False) -> tuple[dict[str, Any], float]:
    """CVXPY's SCS-format data for ``problem`` and its objective offset.

    The offset is not in the data dict; CVXPY keeps it in the solver's inverse data. With
    ``quadratic`` a quadratic objective stays ½xᵀPx (``data["P"]``); otherwise CVXPY writes it
    as an SOC epigraph.
    """
    try:
        data, _chain, inverse = problem.get_problem_data(cp.SCS, solver_opts={"use_quad_obj": quadratic})
    except cp.error.DCPError as exc:
        raise ExportError(f"the problem is not DCP and cannot be compiled to conic form: {exc}") from None
    offset = 0.0
    for item in reversed(inverse):
        try:
            offset = float(item["offset"])
            break
        except (KeyError, TypeError, IndexError):
            continue
    return data, offset


def _psd_rows(orders: tuple[int, ...], start: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Row indices of the diagonal and off-diagonal entries of consecutive PSD cones."""
    diag: list[NDArray[np.int64]] = []
    off: list[NDArray[np.int64]] = []
    row = start
    for n in orders:
        i, j = _lower_indices(n)
        idx = np.arange(row, row + i.size)
        diag.append(idx[i == j])
        off.append(idx[i != j])
        row += i.size
    empty = np.zeros(0, dtype=np.int64)
    return (np.concatenate(diag) if diag else empty), (np.concatenate(off) if off else empty)


def _lower_indices(n: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(row, col) of the lower triangle of an n×n matrix, column by column (i ≥ j)."""
    # np.triu_indices enumerates the upper triangle row by row; transposed, that is the lower
    # triangle column by column, the order SCS and CVXPY use.
    j, i = np.triu_indices(n)
    return i.astype(np.int64), j.astype(np.int64)


def from_cvxpy(problem: cp.Problem, quadratic: bool = False) -> ConicData:
    """Standard-form data of a CVXPY problem, from the SCS data CVXPY compiles.

    Parameters
    ----------
    problem : cvxpy.Problem
    quadratic : bool, default False
        Keep a quadratic objective as ``P`` (for the QP formats); otherwise it becomes an SOC
        epigraph, as the conic formats need.

    Raises
    ------
    ExportError
        If the problem is mixed-integer, has unset parameters or non-finite data.
    """
    unset = sorted(p.name() for p in problem.parameters() if p.value is None)
    if unset:
        raise ExportError(f"parameters without a value cannot be exported: {unset}; set them first")
    if problem.is_mixed_integer():
        raise ExportError("integer or boolean variables cannot be exported (conic formats here are continuous)")
    data, offset = compiled_data(problem, quadratic)
    P = sp.csr_matrix(data["P"], dtype=float) if quadratic and data.get("P") is not None else None
    dims = data["dims"]
    if getattr(dims, "pnd", None):
        raise ExportError("n-dimensional power cones (PowConeND) cannot be exported")
    cones = Cones(
        zero=int(dims.zero),
        nonneg=int(dims.nonneg),
        soc=tuple(int(s) for s in dims.soc),
        psd=tuple(int(s) for s in dims.psd),
        exp=int(dims.exp),
        pow=tuple(float(a) for a in dims.p3d),
    )
    # SCS's own cone order is zero, nonneg, soc, psd, exp, pow: the same as Cones.
    A = sp.csr_matrix(data["A"], dtype=float, copy=True)
    b = np.array(data["b"], dtype=float, copy=True)
    A.sum_duplicates()
    A.eliminate_zeros()
    # Undo the √2 on off-diagonal PSD rows: SCS row = √2·S_ij, we want S_ij.
    _, off = _psd_rows(cones.psd, cones.offsets()["psd"])
    if off.size:
        scale = np.ones(A.shape[0])
        scale[off] = 1.0 / _SQRT2
        A = sp.csr_matrix(sp.diags(scale) @ A)
        b = b * scale
    c = np.array(data["c"], dtype=float, copy=True)
    A, b, cones = _add_bounds(A, b, cones, data.get("lower_bounds"), data.get("upper_bounds"))
    sign = -1 if isinstance(problem.objective, cp.Maximize) else 1
    out = ConicData(c=c, A=A, b=b, cones=cones, offset=offset, sign=sign, P=P)
    quad = () if out.P is None else (("P", out.P.data),)
    for name, arr in (("c", out.c), ("b", out.b), ("A", out.A.data), *quad):
        if not np.all(np.isfinite(arr)):
            raise ExportError(f"the compiled problem has non-finite values in {name}; check the data and parameters")
    return out


def _add_bounds(
    A: sp.csr_matrix, b: NDArray[np.float64], cones: Cones, lower: Any, upper: Any
) -> tuple[sp.csr_matrix, NDArray[np.float64], Cones]:
    """Turn variable bounds CVXPY passes separately into non-negative rows."""
    extra_A: list[sp.csr_matrix] = []
    extra_b: list[NDArray[np.float64]] = []
    n = A.shape[1]
    for bound, sgn in ((lower, -1.0), (upper, 1.0)):
        if bound is None:
            continue
        bound = np.asarray(bound, dtype=float).ravel()
        cols = np.flatnonzero(np.isfinite(bound))
        if cols.size == 0:
            continue
        # lower: x − l ≥ 0, i.e. b − A x with A = −e_j, b = −l; upper: u − x ≥ 0.
        extra_A.append(sp.csr_matrix((np.full(cols.size, sgn), (np.arange(cols.size), cols)), shape=(cols.size, n)))
        extra_b.append(sgn * bound[cols])
    if not extra_A:
        return A, b, cones
    off = cones.offsets()
    at = off["nonneg"] + cones.nonneg
    A = sp.vstack([A[:at], *extra_A, A[at:]], format="csr")
    b = np.concatenate([b[:at], *extra_b, b[at:]])
    k = sum(e.shape[0] for e in extra_A)
    return A, b, Cones(cones.zero, cones.nonneg + k, cones.soc, cones.psd, cones.exp, cones.pow)


def to_cvxpy(data: ConicData) -> tuple[cp.Problem, cp.Variable]:
    """Rebuild a ``cvxpy.Problem`` from standard-form data.

    Returns
    -------
    problem : cvxpy.Problem
        Its optimal value equals the original model's (``sign`` and ``offset`` included).
    x : cvxpy.Variable, shape (n,)

    Raises
    ------
    ParameterError
        If ``data`` is not :class:`ConicData` (e.g. a path: read it with
        :func:`sdpkern.export.read` first).
    """
    if not isinstance(data, ConicData):
        hint = " (a path? read it first: to_cvxpy(export.read(path)))" if isinstance(data, (str, Path)) else ""
        raise ParameterError(f"data must be ConicData, got {type(data).__name__} {data!r:.60}{hint}")
    x = cp.Variable(max(data.n, 1), name="x")
    xv = x if data.n else x[:0]
    cones = data.cones
    off = cones.offsets()
    A, b = data.A, data.b

    def rows(lo: int, hi: int) -> cp.Expression:
        return b[lo:hi] - A[lo:hi] @ xv

    constraints: list[cp.Constraint] = []
    if cones.zero:
        constraints.append(rows(0, cones.zero) == 0)
    if cones.nonneg:
        constraints.append(rows(off["nonneg"], off["nonneg"] + cones.nonneg) >= 0)
    row = off["soc"]
    for q in cones.soc:
        s = rows(row, row + q)
        constraints.append(cp.SOC(s[0], s[1:]))
        row += q
    row = off["psd"]
    for n in cones.psd:
        k = n * (n + 1) // 2
        constraints.append(_symmetric(rows(row, row + k), n) >> 0)
        row += k
    row = off["exp"]
    for _ in range(cones.exp):
        s = rows(row, row + 3)
        constraints.append(cp.constraints.ExpCone(s[0], s[1], s[2]))
        row += 3
    row = off["pow"]
    for alpha in cones.pow:
        s = rows(row, row + 3)
        constraints.append(cp.constraints.PowCone3D(s[0], s[1], s[2], alpha))
        row += 3
    expr = data.c @ xv + data.offset
    if data.P is not None:
        expr = expr + 0.5 * cp.quad_form(xv, cp.psd_wrap(data.P))
    objective = cp.Minimize(expr) if data.sign > 0 else cp.Maximize(-expr)
    return cp.Problem(objective, constraints), x


def _symmetric(v: cp.Expression, n: int) -> cp.Expression:
    """The symmetric n×n matrix whose lower triangle (column by column) is ``v``."""
    i, j = _lower_indices(n)
    k = np.arange(i.size)
    # vec (column-major) positions of (i, j) and (j, i); the diagonal is hit once.
    pos = np.concatenate([j * n + i, (i * n + j)[i != j]])
    src = np.concatenate([k, k[i != j]])
    P = sp.csr_matrix((np.ones(pos.size), (pos, src)), shape=(n * n, i.size))
    return cp.reshape(P @ v, (n, n), order="F")
