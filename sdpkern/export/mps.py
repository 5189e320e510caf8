"""Free MPS and QPS files: LPs and convex QPs for the LP/QP solvers (HiGHS, Gurobi, CPLEX, COPT).

Problems whose only cones are the zero cone and the non-negative orthant (LPs, and QPs with a
quadratic objective ½xᵀPx) have a common file format the conic formats do not serve: MPS in its
free (whitespace-separated) form, with the ``QUADOBJ`` section of the QPS extension for P. The
c.p.d. SVMs (000 eqs. 14-16) are such QPs, and several other forms are LPs or QPs once CVXPY has
canonicalised them.

What is written, from :class:`~sdpkern.export.ConicData` (b − Ax ∈ {0}^z × R₊^l):

* ``ROWS``: the objective ``obj`` (N), one ``E`` row per equality (Ax = b) and one ``L`` row
  per non-negative row (Ax ≤ b), named ``e<i>`` and ``l<i>``;
* ``COLUMNS`` column by column (``x<j>``), ``RHS`` (the objective row's RHS is the negated
  constant term, the convention of CPLEX, Gurobi and HiGHS), ``BOUNDS`` with every column free
  (``FR``: MPS's default bound is x ≥ 0, CVXPY's variables are free), ``QUADOBJ`` with the lower
  triangle of P (the objective is ½xᵀPx + cᵀx, as in every QPS reader);
* the minimisation; ``* sdpkern: sign -1`` records a maximisation, as in the SDPA files.

:func:`read_mps` reads free MPS and QPS files (``OBJSENSE``, ``RANGES``, every continuous bound
type, ``QUADOBJ`` and ``QMATRIX``) back into ``ConicData`` (bounds become rows); integer
markers and integer bound types raise :class:`~sdpkern.errors.FormatError`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from ..errors import ExportError, FormatError, path_error
from ._conic import Cones, ConicData, Elimination, Exported
from ._io import write_atomic

__all__ = ["write_mps", "read_mps", "parse_mps", "check_mps_cones"]


def check_mps_cones(data: ConicData) -> None:
    """:class:`ExportError` unless ``data``'s only cones are the zero cone and R₊ (an LP or QP)."""
    c = data.cones
    others = {"second-order": len(c.soc), "PSD": len(c.psd), "exponential": c.exp, "power": len(c.pow)}
    found = [f"{k} ({v})" for k, v in others.items() if v]
    if found:
        raise ExportError(
            f"MPS/QPS files hold linear and quadratic programs only, but this problem has {', '.join(found)} "
            "cone(s); write .dat-s (SDPA) or .cbf instead"
        )


def _num(v: float) -> str:
    return repr(float(v))


def _lines(data: ConicData, name: str) -> Iterator[str]:
    m, n = data.A.shape
    z = data.cones.zero
    rows = [f"e{i}" if i < z else f"l{i}" for i in range(m)]
    yield f"* sdpkern: {'QPS' if data.P is not None else 'MPS'} file (free format); objective sign * (0.5 x'Px + c'x)\n"
    yield f"* sdpkern: sign {int(data.sign)}\n"
    yield f"NAME {name}\n"
    yield "ROWS\n N obj\n"
    yield "".join(f" {'E' if i < z else 'L'} {rows[i]}\n" for i in range(m))
    yield "COLUMNS\n"
    A = sp.csc_matrix(data.A)
    for j in range(n):
        out = []
        if data.c[j] != 0.0:
            out.append(f" x{j} obj {_num(data.c[j])}\n")
        lo, hi = A.indptr[j], A.indptr[j + 1]
        out.extend(f" x{j} {rows[i]} {_num(v)}\n" for i, v in zip(A.indices[lo:hi], A.data[lo:hi]))
        if not out:  # a column in no row must still be declared
            out.append(f" x{j} obj 0.0\n")
        yield "".join(out)
    yield "RHS\n"
    yield "".join(f" rhs {rows[i]} {_num(v)}\n" for i, v in enumerate(data.b) if v != 0.0)
    if data.offset != 0.0:
        yield f" rhs obj {_num(-data.offset)}\n"
    yield "BOUNDS\n"
    yield "".join(f" FR bnd x{j}\n" for j in range(n))
    if data.P is not None:
        yield "QUADOBJ\n"
        L = sp.tril(data.P, format="coo")
        order = np.lexsort((L.row, L.col))
        yield "".join(f" x{L.col[k]} x{L.row[k]} {_num(L.data[k])}\n" for k in order if L.data[k] != 0.0)
    yield "ENDATA\n"


def write_mps(data: ConicData, path: str | os.PathLike[str]) -> Exported:
    """Write an LP or convex QP as a free MPS file (QPS when it has a quadratic objective).

    Parameters
    ----------
    data : ConicData
        With no cone but the zero cone and the non-negative orthant; ``P`` (if any) symmetric.
    path : path-like
        Written atomically; the suffix is the caller's choice (``.mps`` or ``.qps``).

    Returns
    -------
    Exported
        The file's variables are the problem's (no elimination).

    Raises
    ------
    ExportError
        For a cone an MPS file cannot hold (second-order, PSD, exponential, power), or a P that
        is not symmetric.
    """
    check_mps_cones(data)
    if data.P is not None and abs(data.P - data.P.T).max() > 1e-12 * max(1.0, abs(data.P).max()):
        raise ExportError("the quadratic objective's matrix P is not symmetric; QPS files hold ½xᵀPx with P = Pᵀ")
    target = Path(path)
    write_atomic(target, _lines(data, target.stem.replace(" ", "_") or "sdpkern"))
    meta = {**data.meta, "format": "mps", "path": str(target)}
    written = ConicData(data.c, data.A, data.b, data.cones, data.offset, data.sign, meta, data.P)
    return Exported(target, "mps", written, Elimination.identity(data.n), data)


def read_mps(path: str | os.PathLike[str]) -> ConicData:
    """Read a free MPS or QPS file into standard-form data (see :func:`parse_mps`).

    Raises
    ------
    PathError
        For a file that cannot be read.
    FormatError
        For a malformed file (the message names the line) or an integer program.
    """
    try:
        text = Path(path).read_text(encoding="ascii", errors="strict")
    except OSError as exc:
        raise path_error(exc, path, action="read") from None
    except UnicodeDecodeError:
        raise FormatError(f"{path}: not an ASCII text file") from None
    return parse_mps(text, name=str(path))


_SECTIONS = {"NAME", "OBJSENSE", "OBJSENSE MIN", "OBJSENSE MAX", "OBJSENSE MINIMIZE", "OBJSENSE MAXIMIZE",
             "ROWS", "COLUMNS", "RHS", "RANGES", "BOUNDS", "QUADOBJ", "QMATRIX", "QSECTION", "ENDATA"}  # fmt: skip


class _Reader:
    """The state of :func:`parse_mps` (rows, columns, entries), filled section by section."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.sense = 1
        self.sign_comment = 1
        self.objective: str | None = None
        self.row_type: dict[str, str] = {}
        self.row_order: list[str] = []
        self.col_index: dict[str, int] = {}
        self.entries: list[tuple[int, int, float]] = []  # (row position, column, value)
        self.c: dict[int, float] = {}
        self.rhs: dict[str, float] = {}
        self.offset = 0.0
        self.ranges: dict[str, float] = {}
        self.lower: dict[int, float] = {}
        self.upper: dict[int, float] = {}
        self.quad: list[tuple[int, int, float]] = []

    def fail(self, line: int, msg: str) -> FormatError:
        return FormatError(f"{self.name}: line {line}: {msg}")

    def number(self, token: str, line: int) -> float:
        try:
            v = float(token)
        except ValueError:
            raise self.fail(line, f"{token!r} is not a number") from None
        if not np.isfinite(v) and abs(v) != np.inf:
            raise self.fail(line, f"{token!r} is not a number")
        return v

    def column(self, token: str, line: int, create: bool = False) -> int:
        j = self.col_index.get(token)
        if j is None:
            if not create:
                raise self.fail(line, f"column {token!r} was not declared in COLUMNS")
            j = self.col_index[token] = len(self.col_index)
        return j


def _pairs(tokens: list[str], start: int) -> list[tuple[str, str]]:
    rest = tokens[start:]
    return [(rest[k], rest[k + 1]) for k in range(0, len(rest) - 1, 2)] if len(rest) % 2 == 0 else []


def parse_mps(text: str, name: str = "<string>") -> ConicData:
    """Parse free MPS/QPS text into :class:`ConicData` (see the module docstring).

    Rows: ``E`` → equality rows; ``L`` (Ax ≤ b), ``G`` (Ax ≥ b) and ``RANGES`` → non-negative
    rows; ``N`` rows after the first are ignored (as every reader does). Bounds (MPS's default
    0 ≤ x < ∞; ``UP`` with a negative value and no lower bound makes the lower bound −∞, the
    common reading) become non-negative rows, ``FX`` an equality row.
    """
    r = _Reader(name)
    section = ""
    for k, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip():
            continue
        if line.startswith("*"):
            if line.replace(" ", "").startswith("*sdpkern:sign"):
                r.sign_comment = -1 if line.split()[-1] == "-1" else 1
            continue
        tokens = line.split()
        head = " ".join(tokens[:2]).upper() if tokens[0].upper() == "OBJSENSE" else tokens[0].upper()
        if not raw[0].isspace() and (head in _SECTIONS or tokens[0].upper() in _SECTIONS):
            section = tokens[0].upper()
            if section == "OBJSENSE" and len(tokens) > 1:
                r.sense = -1 if tokens[1].upper().startswith("MAX") else 1
            if section == "ENDATA":
                break
            if section == "QSECTION":
                raise r.fail(k, "QSECTION (quadratic constraints) is not supported: only the objective may be one")
            continue
        if section == "OBJSENSE":
            r.sense = -1 if tokens[0].upper().startswith("MAX") else 1
        elif section == "ROWS":
            _row(r, tokens, k)
        elif section == "COLUMNS":
            _columns(r, tokens, k)
        elif section in ("RHS", "RANGES"):
            _rhs(r, tokens, k, section)
        elif section == "BOUNDS":
            _bound(r, tokens, k)
        elif section in ("QUADOBJ", "QMATRIX"):
            if len(tokens) != 3:
                raise r.fail(k, f"a {section} line is 'column column value', got {line.strip()!r}")
            i, j = r.column(tokens[0], k), r.column(tokens[1], k)
            v = r.number(tokens[2], k)
            if section == "QUADOBJ" and i != j:
                r.quad.append((j, i, v))  # QUADOBJ lists one triangle: mirror it
            r.quad.append((i, j, v))
        elif section == "NAME":
            continue
        else:
            raise r.fail(k, f"data before any section (expected NAME or ROWS): {line.strip()!r}")
    if r.objective is None and not r.row_order:
        raise FormatError(f"{name}: no ROWS section; not an MPS file")
    return _assemble(r)


def _row(r: _Reader, tokens: list[str], k: int) -> None:
    if len(tokens) != 2 or tokens[0].upper() not in ("N", "E", "L", "G"):
        raise r.fail(k, f"a ROWS line is 'N|E|L|G name', got {' '.join(tokens)!r}")
    kind, row = tokens[0].upper(), tokens[1]
    if row in r.row_type or row == r.objective:
        raise r.fail(k, f"row {row!r} declared twice")
    if kind == "N":
        if r.objective is None:
            r.objective = row
        else:
            r.row_type[row] = "N"  # free rows after the objective: ignored
        return
    r.row_type[row] = kind
    r.row_order.append(row)


def _columns(r: _Reader, tokens: list[str], k: int) -> None:
    if len(tokens) >= 3 and tokens[1].strip("'").upper() == "MARKER":
        raise r.fail(k, "integer markers: integer programs cannot be read (the formats here are continuous)")
    pairs = _pairs(tokens, 1)
    if len(tokens) < 3 or not pairs:
        raise r.fail(k, f"a COLUMNS line is 'column row value [row value]', got {' '.join(tokens)!r}")
    j = r.column(tokens[0], k, create=True)
    for row, value in pairs:
        v = r.number(value, k)
        if row == r.objective:
            r.c[j] = r.c.get(j, 0.0) + v
        elif r.row_type.get(row) == "N":
            continue
        elif row in r.row_type:
            r.entries.append((_position(r, row), j, v))
        else:
            raise r.fail(k, f"row {row!r} was not declared in ROWS")


def _position(r: _Reader, row: str) -> int:
    pos = getattr(r, "_pos", None)
    if pos is None or len(pos) != len(r.row_order):
        pos = {name: i for i, name in enumerate(r.row_order)}
        r._pos = pos  # type: ignore[attr-defined]
    return int(pos[row])


def _rhs(r: _Reader, tokens: list[str], k: int, section: str) -> None:
    pairs = _pairs(tokens, 1) or _pairs(tokens, 0)  # the set name is optional in free MPS
    if not pairs:
        raise r.fail(k, f"a {section} line is '[set] row value [row value]', got {' '.join(tokens)!r}")
    for row, value in pairs:
        v = r.number(value, k)
        if section == "RHS" and row == r.objective:
            r.offset = -v  # the objective row's RHS is the negated constant term
        elif r.row_type.get(row) == "N":
            continue
        elif row not in r.row_type:
            raise r.fail(k, f"row {row!r} was not declared in ROWS")
        elif section == "RHS":
            r.rhs[row] = v
        else:
            r.ranges[row] = v


_BOUND_TYPES = {"UP", "LO", "FX", "FR", "MI", "PL"}


def _bound(r: _Reader, tokens: list[str], k: int) -> None:
    kind = tokens[0].upper()
    if kind in ("BV", "LI", "UI", "SC"):
        raise r.fail(k, f"bound type {kind} makes an integer program, which cannot be read")
    if kind not in _BOUND_TYPES:
        raise r.fail(k, f"unknown bound type {kind!r}; expected one of {sorted(_BOUND_TYPES)}")
    needs_value = kind in ("UP", "LO", "FX")
    rest = tokens[1:]
    if needs_value and len(rest) == 2:
        rest = ["", *rest]  # no bound set name
    if (needs_value and len(rest) != 3) or (not needs_value and len(rest) not in (1, 2)):
        raise r.fail(k, f"a BOUNDS line is 'TYPE [set] column [value]', got {' '.join(tokens)!r}")
    j = r.column(rest[1] if (needs_value or len(rest) == 2) else rest[0], k)
    v = r.number(rest[2], k) if needs_value else 0.0
    if kind == "UP":
        r.upper[j] = v
        if v < 0 and j not in r.lower:
            r.lower[j] = -np.inf
    elif kind == "LO":
        r.lower[j] = v
    elif kind == "FX":
        r.lower[j] = r.upper[j] = v
    elif kind == "FR":
        r.lower[j], r.upper[j] = -np.inf, np.inf
    elif kind == "MI":
        r.lower[j] = -np.inf
    else:
        r.upper[j] = np.inf


def _assemble(r: _Reader) -> ConicData:
    n = len(r.col_index)
    nrow = len(r.row_order)
    if r.entries:
        ri, cj, vv = (np.array(t) for t in zip(*r.entries))
        A0 = sp.csr_matrix((vv.astype(float), (ri.astype(int), cj.astype(int))), shape=(nrow, n))
    else:
        A0 = sp.csr_matrix((nrow, n))
    b0 = np.array([r.rhs.get(row, 0.0) for row in r.row_order])
    eq_A: list[sp.csr_matrix] = []
    eq_b: list[NDArray[np.float64]] = []
    ge_A: list[sp.csr_matrix] = []  # rows of b − Ax ≥ 0
    ge_b: list[NDArray[np.float64]] = []
    for i, row in enumerate(r.row_order):
        a, rhs, kind = A0[i], b0[i], r.row_type[row]
        rng = r.ranges.get(row)
        if kind == "E" and rng is None:
            eq_A.append(a)
            eq_b.append(np.array([rhs]))
            continue
        lo, hi = _row_interval(kind, rhs, rng)
        if np.isfinite(hi):
            ge_A.append(a)
            ge_b.append(np.array([hi]))
        if np.isfinite(lo):
            ge_A.append(-a)
            ge_b.append(np.array([-lo]))
    eye = sp.identity(n, format="csr")
    for j in range(n):
        lo, hi = r.lower.get(j, 0.0), r.upper.get(j, np.inf)
        if lo == hi:
            eq_A.append(eye[j])
            eq_b.append(np.array([lo]))
            continue
        if np.isfinite(lo):
            ge_A.append(-eye[j])
            ge_b.append(np.array([-lo]))
        if np.isfinite(hi):
            ge_A.append(eye[j])
            ge_b.append(np.array([hi]))
    blocks = eq_A + ge_A
    A = sp.vstack(blocks, format="csr") if blocks else sp.csr_matrix((0, n))
    b = np.concatenate(eq_b + ge_b) if blocks else np.zeros(0)
    c = np.zeros(n)
    for j, v in r.c.items():
        c[j] = v
    P = None
    if r.quad:
        qi, qj, qv = (np.array(t) for t in zip(*r.quad))
        P = sp.csr_matrix((qv.astype(float), (qi.astype(int), qj.astype(int))), shape=(n, n))
    sign = r.sense * r.sign_comment
    if r.sense < 0:  # a maximisation: store the minimisation of the negated objective
        c, P, offset = -c, (None if P is None else -P), -r.offset
    else:
        offset = r.offset
    return ConicData(c=c, A=A, b=b, cones=Cones(zero=len(eq_A), nonneg=len(ge_A)), offset=offset, sign=sign,
                     meta={"format": "mps", "path": r.name, "columns": list(r.col_index)}, P=P)  # fmt: skip


def _row_interval(kind: str, rhs: float, rng: float | None) -> tuple[float, float]:
    """The interval lo ≤ aᵀx ≤ hi of a row with its RANGES value (the MPS standard's table)."""
    if rng is None:
        return (-np.inf, rhs) if kind == "L" else (rhs, np.inf)
    if kind == "L":
        return rhs - abs(rng), rhs
    if kind == "G":
        return rhs, rhs + abs(rng)
    return (rhs, rhs + rng) if rng >= 0 else (rhs + rng, rhs)  # E with a range
