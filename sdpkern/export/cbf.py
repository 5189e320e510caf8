"""Conic Benchmark Format, version 3 (``.cbf``), as read by MOSEK and the CBLIB tools.

A CBF file states

    min/max  cᵀx + ⟨C, X⟩ + c₀
    s.t.     g = A x + F(X) + b ∈ K      (CON: rows grouped into cones L=, L+, L-, Q, QR, EXP, POW)
             G_i = Σⱼ xⱼ H_ij + D_i ⪰ 0   (PSDCON)
             x ∈ K_x (VAR), X_j ⪰ 0 (PSDVAR)

The writer maps the standard form b − A x ∈ K onto CON/PSDCON with all variables free: the
zero cone is ``L=``, the non-negative one ``L+``, an SOC ``Q``, a PSD cone a PSDCON whose
matrices are written by their lower triangle (unscaled). The exponential cone goes in as
``EXP`` with its coordinates reversed (CVXPY's (x, y, z) with y·exp(x/y) ≤ z is CBF's
(z, y, x) with x₁ ≥ x₂·exp(x₃/x₂)), a 3-d power cone as ``@k:POW`` with weights (α, 1−α).
``Maximize`` problems are written with ``OBJSENSE MAX``.

The reader accepts the same subset plus ``L-``, ``F``, ``QR`` (turned into an SOC by a
linear change of coordinates), variable cones and PSDVAR matrix variables (their lower
triangles become new scalar variables with a PSD cone). Integer variables, dual cones and
multi-instance ``CHANGE`` files are refused with :class:`~sdpkern.errors.FormatError`.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from ..errors import FormatError, path_error
from ._conic import Cones, ConicData, Elimination, Exported, _lower_indices
from ._io import format_rows, write_atomic

__all__ = ["write_cbf", "read_cbf", "parse_cbf"]


# ---------------------------------------------------------------------------------- writing


def write_cbf(data: ConicData, path: str | os.PathLike[str]) -> Exported:
    """Write standard-form data as a CBF version 3 file (atomically).

    Parameters
    ----------
    data : ConicData
    path : path-like

    Returns
    -------
    Exported
    """
    cones = data.cones
    off = cones.offsets()
    m = data.A.shape[0]
    # Scalar rows (everything but PSD) in file order; EXP rows reversed within each cone.
    scalar_rows = [np.arange(0, off["psd"])]
    exp_rows = off["exp"] + np.arange(3 * cones.exp).reshape(-1, 3)[:, ::-1].ravel()
    scalar_rows += [exp_rows, np.arange(off["pow"], m)]
    srows = np.concatenate(scalar_rows).astype(np.int64)
    psd_rows = np.arange(off["psd"], off["exp"])

    con_cones: list[str] = []
    if cones.zero:
        con_cones.append(f"L= {cones.zero}")
    if cones.nonneg:
        con_cones.append(f"L+ {cones.nonneg}")
    con_cones += [f"Q {q}" for q in cones.soc]
    con_cones += ["EXP 3"] * cones.exp
    con_cones += [f"@{k}:POW 3" for k in range(len(cones.pow))]

    sense = "MAX" if data.sign < 0 else "MIN"
    # The file's objective is the original model's: sign·(cᵀx + offset).
    cobj = data.sign * data.c
    cconst = data.sign * data.offset

    head: list[str] = ["# written by sdpkern.export (Conic Benchmark Format)\n", "VER\n3\n\n"]
    if cones.pow:
        head.append(f"POWCONES\n{len(cones.pow)} {2 * len(cones.pow)}\n")
        head.append("".join(f"2\n{a!r}\n{1.0 - a!r}\n" for a in cones.pow) + "\n")
    head.append(f"OBJSENSE\n{sense}\n\n")
    head.append(f"VAR\n{data.n} 1\nF {data.n}\n\n")
    if con_cones:
        head.append(f"CON\n{srows.size} {len(con_cones)}\n" + "\n".join(con_cones) + "\n\n")
    if cones.psd:
        head.append(f"PSDCON\n{len(cones.psd)}\n" + "\n".join(str(n) for n in cones.psd) + "\n\n")

    A = sp.csr_matrix(data.A)
    A.sum_duplicates()
    # Every table is computed before writing, so the header can state the file's line count.
    jc = np.flatnonzero(cobj)
    As = A[srows].tocoo()
    keep_s = As.data != 0
    bs = data.b[srows]
    ib = np.flatnonzero(bs)
    empty = np.zeros(0, dtype=np.int64)
    con_id, kk, ll = _psd_coordinates(cones.psd) if cones.psd else (empty, empty, empty)
    Ap = A[psd_rows].tocoo()
    keep_p = Ap.data != 0
    bp = data.b[psd_rows]
    ibp = np.flatnonzero(bp)
    tables = [int(jc.size), int(keep_s.sum()), int(ib.size)]
    if cones.psd:
        tables += [int(keep_p.sum()), int(ibp.size)]
    n_lines = sum(1 for part in head for ln in part.splitlines() if ln.strip() and not ln.startswith("#"))
    n_lines += sum(2 + t for t in tables if t) + (2 if cconst != 0.0 else 0)
    # A cut between two sections would leave a valid, different problem; the reader checks this.
    head.insert(1, f"# sdpkern: lines {n_lines} (non-comment lines; a file cut short fails to read)\n")

    def pieces() -> Iterator[str | bytes]:
        yield "".join(head)
        if jc.size:
            yield f"OBJACOORD\n{jc.size}\n"
            yield from format_rows([jc], cobj[jc])
            yield "\n"
        if cconst != 0.0:
            yield f"OBJBCOORD\n{cconst!r}\n\n"
        if keep_s.any():
            # g = −A x + b on the scalar rows, renumbered in file order.
            yield f"ACOORD\n{int(keep_s.sum())}\n"
            yield from format_rows([As.row[keep_s], As.col[keep_s]], -As.data[keep_s])
            yield "\n"
        if ib.size:
            yield f"BCOORD\n{ib.size}\n"
            yield from format_rows([ib], bs[ib])
            yield "\n"
        if cones.psd and keep_p.any():
            r = Ap.row[keep_p]
            yield f"HCOORD\n{int(keep_p.sum())}\n"
            yield from format_rows([con_id[r], Ap.col[keep_p], kk[r], ll[r]], -Ap.data[keep_p])
            yield "\n"
        if cones.psd and ibp.size:
            yield f"DCOORD\n{ibp.size}\n"
            yield from format_rows([con_id[ibp], kk[ibp], ll[ibp]], bp[ibp])
            yield "\n"

    out = write_atomic(path, pieces())
    return Exported(path=out, format="cbf", data=data, elimination=Elimination.identity(data.n), original=data)


def _psd_coordinates(orders: tuple[int, ...]) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """For every PSD row: its cone index and (k, l) with k ≥ l (0-based, CBF's numbering)."""
    cid, kk, ll = [], [], []
    for c, n in enumerate(orders):
        i, j = _lower_indices(n)
        cid.append(np.full(i.size, c))
        kk.append(i)
        ll.append(j)
    return (
        np.concatenate(cid).astype(np.int64),
        np.concatenate(kk).astype(np.int64),
        np.concatenate(ll).astype(np.int64),
    )


# ---------------------------------------------------------------------------------- reading

#: The coordinate sections and how many integers (indices) precede the value on each entry line.
_COORD_INTS = {"OBJACOORD": 1, "OBJFCOORD": 3, "ACOORD": 2, "BCOORD": 1, "FCOORD": 4, "HCOORD": 4, "DCOORD": 3}

_KEYWORDS = {
    "VER",
    "OBJSENSE",
    "POWCONES",
    "POW*CONES",
    "PSDVAR",
    "VAR",
    "INT",
    "PSDCON",
    "CON",
    "OBJBCOORD",
    "CHANGE",
} | set(_COORD_INTS)


#: Size cap (variables or rows) beyond which a file is refused rather than allocated.
_MAX_SIZE = 50_000_000

_Table = tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]


class _Lines:
    """Non-comment lines of a CBF file with their 1-based numbers."""

    def __init__(self, text: str, name: str) -> None:
        self.items = [
            (no, line.strip())
            for no, line in enumerate(text.splitlines(), start=1)
            if line.strip() and not line.lstrip().startswith("#")
        ]
        self.pos = 0
        self.name = name

    def fail(self, lineno: int, what: str) -> FormatError:
        return FormatError(f"{self.name}: line {lineno}: {what}")

    def done(self) -> bool:
        return self.pos >= len(self.items)

    def next(self, what: str) -> tuple[int, list[str]]:
        if self.done():
            last = self.items[-1][0] + 1 if self.items else 1
            raise self.fail(last, f"unexpected end of file while reading {what}")
        no, line = self.items[self.pos]
        self.pos += 1
        return no, line.split()

    def ints(self, count: int, what: str) -> tuple[int, list[int]]:
        no, toks = self.next(what)
        if len(toks) != count:
            raise self.fail(no, f"{what}: expected {count} integer(s), got {len(toks)} field(s)")
        return no, [_int(t, no, what, self) for t in toks]

    def table(self, nnz: int, n_int: int, what: str) -> _Table:
        """``nnz`` lines of ``n_int`` integers and one float; returns ints, values, line numbers."""
        if nnz < 0:
            raise self.fail(self.items[self.pos - 1][0], f"{what}: negative count")
        if self.pos + nnz > len(self.items):
            last = self.items[-1][0] + 1 if self.items else 1
            raise self.fail(last, f"unexpected end of file in {what} (expected {nnz} entries)")
        chunk = self.items[self.pos : self.pos + nnz]
        self.pos += nnz
        ints = np.zeros((nnz, n_int), dtype=np.int64)
        vals = np.zeros(nnz)
        nos = np.array([no for no, _ in chunk], dtype=np.int64)
        for r, (no, line) in enumerate(chunk):
            toks = line.split()
            if len(toks) != n_int + 1:
                raise self.fail(no, f"{what}: expected {n_int + 1} fields, got {len(toks)}")
            for k in range(n_int):
                ints[r, k] = _int(toks[k], no, what, self)
            vals[r] = _float(toks[-1], no, what, self)
        return ints, vals, nos


def _int(tok: str, no: int, what: str, lines: _Lines) -> int:
    try:
        return int(tok)
    except ValueError:
        raise lines.fail(no, f"{what}: {tok!r} is not an integer") from None


def _float(tok: str, no: int, what: str, lines: _Lines) -> float:
    try:
        v = float(tok)
    except ValueError:
        raise lines.fail(no, f"{what}: {tok!r} is not a number") from None
    if not math.isfinite(v):
        raise lines.fail(no, f"{what}: {tok!r} is not finite")
    return v


def read_cbf(path: str | os.PathLike[str]) -> ConicData:
    """Read a CBF file into standard-form data (see :func:`parse_cbf`).

    A file that cannot be read raises :class:`~sdpkern.errors.PathError`, a malformed one
    :class:`~sdpkern.errors.FormatError` naming the line."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise path_error(exc, path, action="read") from None
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise FormatError(f"{p}: line {line}: not an ASCII text file") from None
    return parse_cbf(text, name=str(p))


@dataclass
class _Sections:
    """What a CBF file's sections declare, before any index is checked."""

    sense: str = "MIN"
    powcones: list[list[float]] = field(default_factory=list)
    var_cones: list[tuple[str, int, int]] = field(default_factory=list)  # (kind, dim, line number)
    con_cones: list[tuple[str, int, int]] = field(default_factory=list)
    n_var: int = 0  # no VAR section: coefficients on scalar variables fail the range checks
    n_con: int = 0
    psdvar: list[int] = field(default_factory=list)
    psdcon: list[int] = field(default_factory=list)
    # every coordinate section starts empty: (integer indices, values, line numbers)
    coords: dict[str, _Table] = field(
        default_factory=lambda: {
            key: (np.zeros((0, n), np.int64), np.zeros(0), np.zeros(0, np.int64)) for key, n in _COORD_INTS.items()
        }
    )
    objb: float = 0.0
    size_line: int = 1  # the last line that declared sizes (for the size-cap message)


def parse_cbf(text: str, name: str = "<string>") -> ConicData:
    """Parse CBF text into standard-form data.

    Raises
    ------
    FormatError
        For a malformed or unsupported file; the message gives the line number.
    """
    L = _Lines(text, name)
    stated = re.search(r"^[ \t]*#[ \t]*sdpkern:[ \t]*lines[ \t]+(\d+)", text, re.M)
    if stated and int(stated.group(1)) != len(L.items):
        raise FormatError(
            f"{name}: the file has {len(L.items)} non-comment lines but its '# sdpkern: lines' comment says "
            f"{stated.group(1)}: it was cut short or edited"
        )
    if L.done():
        raise L.fail(1, "empty file (a CBF file starts with VER)")
    no, toks = L.next("VER")
    if toks != ["VER"]:
        raise L.fail(no, f"a CBF file must start with VER, got {' '.join(toks)!r}")
    no, (ver,) = L.ints(1, "the version")
    if ver not in (1, 2, 3):
        raise L.fail(no, f"CBF version {ver} is not supported (1 to 3 are)")
    s = _read_sections(L)
    _check_indices(s, L)
    return _assemble(s, L, name)


def _read_sections(L: _Lines) -> _Sections:
    """Read every keyword section after VER; each keyword at most once."""
    s = _Sections()
    seen: set[str] = set()
    while not L.done():
        no, toks = L.next("a keyword")
        if len(toks) != 1 or toks[0] not in _KEYWORDS:
            raise L.fail(no, f"expected a CBF keyword, got {' '.join(toks)[:40]!r}")
        key = toks[0]
        if key in seen:
            raise L.fail(no, f"{key} appears twice")
        seen.add(key)
        if key in ("INT", "CHANGE", "POW*CONES"):
            raise L.fail(no, f"{key} is not supported by sdpkern's reader (continuous, single-instance problems only)")
        if key == "VER":
            raise L.fail(no, "VER must come first and only once")
        elif key == "OBJSENSE":
            sno, stoks = L.next("the objective sense")
            if stoks not in (["MIN"], ["MAX"]):
                raise L.fail(sno, f"OBJSENSE must be MIN or MAX, got {' '.join(stoks)!r}")
            s.sense = stoks[0]
        elif key == "POWCONES":
            s.powcones = _read_powcones(L)
        elif key == "VAR":
            s.n_var, s.var_cones = _read_cone_list(L, "VAR")
            s.size_line = max(s.size_line, no)
        elif key == "CON":
            s.n_con, s.con_cones = _read_cone_list(L, "CON")
            s.size_line = max(s.size_line, no)
        elif key in ("PSDVAR", "PSDCON"):
            dims = _read_psd_dims(L, key)
            s.size_line = max(s.size_line, no)
            if key == "PSDVAR":
                s.psdvar = dims
            else:
                s.psdcon = dims
        elif key == "OBJBCOORD":
            bno, bt = L.next("OBJBCOORD")
            if len(bt) != 1:
                raise L.fail(bno, "OBJBCOORD is one number")
            s.objb = _float(bt[0], bno, "OBJBCOORD", L)
        else:
            cno, (nnz,) = L.ints(1, f"the number of {key} entries")
            if nnz < 0:
                raise L.fail(cno, f"{key}: negative count")
            s.coords[key] = L.table(nnz, _COORD_INTS[key], key)
    return s


def _read_cone_list(L: _Lines, what: str) -> tuple[int, list[tuple[str, int, int]]]:
    """A VAR or CON section: 'total k', then k lines 'NAME dim' whose dims add up to total."""
    no, (total, k) = L.ints(2, f"{what} sizes")
    if total < 0 or k < 0:
        raise L.fail(no, f"{what}: negative size")
    out = []
    for _ in range(k):
        cno, ctoks = L.next(f"a {what} cone")
        if len(ctoks) != 2:
            raise L.fail(cno, f"{what}: a cone line is 'NAME dim', got {' '.join(ctoks)!r}")
        dim = _int(ctoks[1], cno, what, L)
        if dim < 1:
            raise L.fail(cno, f"{what}: cone dimension must be ≥ 1, got {dim}")
        out.append((ctoks[0], dim, cno))
    if sum(d for _, d, _ in out) != total:
        raise L.fail(no, f"{what}: cone dimensions add up to {sum(d for _, d, _ in out)}, not {total}")
    return total, out


def _read_powcones(L: _Lines) -> list[list[float]]:
    """A POWCONES section: 'k total', then each cone's number of weights and the weights."""
    pno, (k, total) = L.ints(2, "POWCONES sizes")
    if k < 0 or total < 0 or total > 10**6:
        raise L.fail(pno, "POWCONES: bad sizes")
    powcones = []
    for _ in range(k):
        ano, (r,) = L.ints(1, "a power cone's number of weights")
        if r < 1 or r > 10**6:
            raise L.fail(ano, "a power cone needs at least one weight")
        alphas = []
        for _ in range(r):
            wno, wt = L.next("a power cone weight")
            if len(wt) != 1:
                raise L.fail(wno, "a power cone weight is one number")
            alphas.append(_float(wt[0], wno, "a power cone weight", L))
        powcones.append(alphas)
    if sum(len(a) for a in powcones) != total:
        raise L.fail(pno, "POWCONES: the weights do not add up to the stated total")
    return powcones


def _read_psd_dims(L: _Lines, key: str) -> list[int]:
    """A PSDVAR or PSDCON section: the count, then one matrix order per line."""
    kno, (k,) = L.ints(1, f"the number of {key} entries")
    if k < 0:
        raise L.fail(kno, f"{key}: negative count")
    dims = []
    for _ in range(k):
        dno, (d,) = L.ints(1, f"a {key} dimension")
        if d < 1 or d > 10**4:
            raise L.fail(dno, f"{key}: dimension must be in 1..10^4, got {d}")
        dims.append(d)
    return dims


def _check_indices(s: _Sections, L: _Lines) -> None:
    """Every index in range; each failure names the line of the first offending entry."""

    def check(tab: _Table, col: int, upper: int, what: str) -> None:
        ints, _, nos = tab
        if ints.shape[0]:
            bad = (ints[:, col] < 0) | (ints[:, col] >= upper)
            if bad.any():
                raise L.fail(int(nos[np.argmax(bad)]), f"{what} index out of range 0..{upper - 1}")

    def check_entry(tab: _Table, which: int, kcol: int, dims: list[int], what: str) -> None:
        ints, _, nos = tab
        if ints.shape[0] == 0:
            return
        order = np.asarray(dims, dtype=np.int64)[ints[:, which]]
        k, l = ints[:, kcol], ints[:, kcol + 1]
        bad = (k < 0) | (l < 0) | (k >= order) | (l >= order)
        if bad.any():
            raise L.fail(int(nos[np.argmax(bad)]), f"{what}: matrix entry outside the matrix")

    co = s.coords
    check(co["OBJACOORD"], 0, s.n_var, "OBJACOORD variable")
    check(co["ACOORD"], 0, s.n_con, "ACOORD row")
    check(co["ACOORD"], 1, s.n_var, "ACOORD variable")
    check(co["BCOORD"], 0, s.n_con, "BCOORD row")
    check(co["HCOORD"], 0, len(s.psdcon), "HCOORD PSD constraint")
    check(co["HCOORD"], 1, s.n_var, "HCOORD variable")
    check(co["DCOORD"], 0, len(s.psdcon), "DCOORD PSD constraint")
    check(co["FCOORD"], 0, s.n_con, "FCOORD row")
    check(co["FCOORD"], 1, len(s.psdvar), "FCOORD PSD variable")
    check(co["OBJFCOORD"], 0, len(s.psdvar), "OBJFCOORD PSD variable")
    check_entry(co["HCOORD"], 0, 2, s.psdcon, "HCOORD")
    check_entry(co["DCOORD"], 0, 1, s.psdcon, "DCOORD")
    check_entry(co["FCOORD"], 1, 2, s.psdvar, "FCOORD")
    check_entry(co["OBJFCOORD"], 0, 1, s.psdvar, "OBJFCOORD")


def _tri_index(d: NDArray[np.int64], k: NDArray[np.int64], l: NDArray[np.int64]) -> NDArray[np.int64]:
    """Position of entry (k, l) in the column-by-column lower triangle of an order-d matrix."""
    kk, ll = np.maximum(k, l), np.minimum(k, l)
    return ll * d - ll * (ll - 1) // 2 + (kk - ll)


def _f_weight(k: NDArray[np.int64], l: NDArray[np.int64]) -> NDArray[np.float64]:
    # ⟨F, X⟩ for symmetric F given by one triangle: an off-diagonal entry counts twice.
    return np.where(k == l, 1.0, 2.0)


_GroupList = list[tuple[sp.csr_matrix, NDArray[np.float64], object]]
_KINDS = ("zero", "nonneg", "soc", "psd", "exp", "pow")


def _assemble(s: _Sections, L: _Lines, name: str) -> ConicData:
    """Standard form b − A x ∈ K: scalar x first, then each PSDVAR's lower triangle (unscaled)."""
    pv_start = [s.n_var]
    for d in s.psdvar:
        pv_start.append(pv_start[-1] + d * (d + 1) // 2)
    n_total = pv_start[-1]
    n_psd_rows = sum(d * (d + 1) // 2 for d in s.psdcon)
    if max(n_total, s.n_con + n_psd_rows) > _MAX_SIZE:
        raise L.fail(
            s.size_line,
            f"the problem is implausibly large ({n_total} variables, {s.n_con + n_psd_rows} rows; "
            f"this reader stops at {_MAX_SIZE})",
        )
    starts = np.asarray(pv_start, dtype=np.int64)
    psdvar = np.asarray(s.psdvar, dtype=np.int64)
    co = s.coords

    c = np.zeros(n_total)
    np.add.at(c, co["OBJACOORD"][0][:, 0], co["OBJACOORD"][1])
    if co["OBJFCOORD"][1].size:
        j, k, l = co["OBJFCOORD"][0].T
        np.add.at(c, starts[j] + _tri_index(psdvar[j], k, l), co["OBJFCOORD"][1] * _f_weight(k, l))

    groups: dict[str, _GroupList] = {kind: [] for kind in _KINDS}
    G, g0 = _scalar_rows(s, starts, n_total)
    row = 0
    for kind, dim, lineno in s.con_cones:
        _add_cone(groups, s.powcones, L, kind, dim, G[row : row + dim], g0[row : row + dim], lineno)
        row += dim

    def identity_rows(start: int, count: int) -> sp.csr_matrix:
        return sp.csr_matrix((np.ones(count), (np.arange(count), start + np.arange(count))), shape=(count, n_total))

    row = 0
    for kind, dim, lineno in s.var_cones:
        if kind != "F":
            _add_cone(groups, s.powcones, L, kind, dim, identity_rows(row, dim), np.zeros(dim), lineno)
        row += dim
    for jv, d in enumerate(s.psdvar):
        size = d * (d + 1) // 2
        groups["psd"].append((identity_rows(pv_start[jv], size), np.zeros(size), d))
    if s.psdcon:
        groups["psd"] += _psdcon_blocks(s, n_total)

    blocks_G = [g for kind in _KINDS for g, _, _ in groups[kind]]
    blocks_g = [v for kind in _KINDS for _, v, _ in groups[kind]]
    if blocks_G:
        Gall = sp.vstack(blocks_G, format="csr")
        gall = np.concatenate(blocks_g)
    else:
        Gall = sp.csr_matrix((0, n_total))
        gall = np.zeros(0)
    cones = Cones(
        zero=sum(int(d) for _, _, d in groups["zero"]),  # type: ignore[call-overload]
        nonneg=sum(int(d) for _, _, d in groups["nonneg"]),  # type: ignore[call-overload]
        soc=tuple(int(d) for _, _, d in groups["soc"]),  # type: ignore[call-overload]
        psd=tuple(int(d) for _, _, d in groups["psd"]),  # type: ignore[call-overload]
        exp=len(groups["exp"]),
        pow=tuple(float(a) for _, _, a in groups["pow"]),  # type: ignore[arg-type]
    )
    # g = G x + g0 ∈ K is b − A x ∈ K with A = −G, b = g0.
    sign = -1 if s.sense == "MAX" else 1
    return ConicData(
        c=sign * c, A=-Gall, b=gall, cones=cones, offset=sign * s.objb, sign=sign, meta={"format": "cbf", "path": name}
    )


def _scalar_rows(s: _Sections, starts: NDArray[np.int64], n_total: int) -> tuple[sp.csr_matrix, NDArray[np.float64]]:
    """The CON rows g = A x + F(X) + b as (G, g0) over all scalar variables."""
    acoord, fcoord, bcoord = s.coords["ACOORD"], s.coords["FCOORD"], s.coords["BCOORD"]
    rows_i = [acoord[0][:, 0]]
    cols_i = [acoord[0][:, 1]]
    vals_i = [acoord[1]]
    if fcoord[1].size:
        i, j, k, l = fcoord[0].T
        rows_i.append(i)
        cols_i.append(starts[j] + _tri_index(np.asarray(s.psdvar, dtype=np.int64)[j], k, l))
        vals_i.append(fcoord[1] * _f_weight(k, l))
    G = sp.csr_matrix(
        (np.concatenate(vals_i), (np.concatenate(rows_i), np.concatenate(cols_i))), shape=(s.n_con, n_total)
    )
    g0 = np.zeros(s.n_con)
    np.add.at(g0, bcoord[0][:, 0], bcoord[1])
    return G, g0


def _psdcon_blocks(s: _Sections, n_total: int) -> _GroupList:
    """One PSD group per PSDCON: G_i = Σⱼ xⱼ H_ij + D_i by its lower triangle."""
    hcoord, dcoord = s.coords["HCOORD"], s.coords["DCOORD"]
    hi, hj, hk, hl = hcoord[0].T
    pdims = np.asarray(s.psdcon, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(pdims * (pdims + 1) // 2)[:-1]]).astype(np.int64)
    rows_h = starts[hi] + _tri_index(pdims[hi], hk, hl)
    n_h = int((pdims * (pdims + 1) // 2).sum())
    H = sp.csr_matrix((hcoord[1], (rows_h, hj)), shape=(n_h, n_total))
    h0 = np.zeros(n_h)
    if dcoord[1].size:
        di, dk, dl = dcoord[0].T
        np.add.at(h0, starts[di] + _tri_index(pdims[di], dk, dl), dcoord[1])
    out: _GroupList = []
    for ci, d in enumerate(s.psdcon):
        kk = d * (d + 1) // 2
        out.append((H[starts[ci] : starts[ci] + kk], h0[starts[ci] : starts[ci] + kk], d))
    return out


def _add_cone(
    groups: dict[str, _GroupList],
    powcones: list[list[float]],
    L: _Lines,
    kind: str,
    dim: int,
    Gr: sp.csr_matrix,
    gr: NDArray[np.float64],
    lineno: int,
) -> None:
    """File the rows (Gr, gr) of one CBF cone under its standard-form kind (F adds nothing)."""
    if kind == "F":
        return
    if kind == "L=":
        groups["zero"].append((Gr, gr, dim))
    elif kind == "L+":
        groups["nonneg"].append((Gr, gr, dim))
    elif kind == "L-":
        groups["nonneg"].append((-Gr, -gr, dim))
    elif kind == "Q":
        groups["soc"].append((Gr, gr, dim))
    elif kind == "QR":
        if dim < 2:
            raise L.fail(lineno, "a QR cone needs dimension ≥ 2")
        # 2·x1·x2 ≥ ‖z‖², x1, x2 ≥ 0  ⇔  (x1 + x2, x1 − x2, √2·z) ∈ SOC.
        T = sp.lil_matrix((dim, dim))
        T[0, 0] = T[0, 1] = T[1, 0] = 1.0
        T[1, 1] = -1.0
        for r in range(2, dim):
            T[r, r] = math.sqrt(2.0)
        T = sp.csr_matrix(T)
        groups["soc"].append((sp.csr_matrix(T @ Gr), T @ gr, dim))
    elif kind == "EXP":
        if dim != 3:
            raise L.fail(lineno, f"an EXP cone has dimension 3, got {dim}")
        rev = [2, 1, 0]
        groups["exp"].append((Gr[rev], gr[rev], 1))
    elif kind.startswith("@") and kind.endswith(":POW"):
        try:
            idx = int(kind[1:-4])
        except ValueError:
            raise L.fail(lineno, f"bad power cone reference {kind!r}") from None
        if not 0 <= idx < len(powcones):
            raise L.fail(lineno, f"power cone {kind!r} refers to an undefined POWCONES entry")
        alphas = powcones[idx]
        if dim != 3 or len(alphas) != 2 or min(alphas) <= 0:
            raise L.fail(lineno, "only 3-dimensional power cones with two positive weights are supported")
        groups["pow"].append((Gr, gr, alphas[0] / (alphas[0] + alphas[1])))
    else:
        raise L.fail(lineno, f"unsupported cone {kind!r} (supported: F, L=, L+, L-, Q, QR, EXP, @k:POW)")
