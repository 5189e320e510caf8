"""SDPA sparse format (``.dat-s``), as read by CSDP, DSDP and SDPA.

The file describes the primal-dual pair

    (P) minimise cᵀx  s.t.  F(x) = Σᵢ Fᵢ xᵢ − F₀ ⪰ 0        (SDPA's "primal")
    (D) maximise F₀•Y s.t.  Fᵢ•Y = cᵢ,  Y ⪰ 0

with block-diagonal Fᵢ. A conic program b − A x ∈ K maps onto (P) block by block:

* non-negative rows become the diagonal (LP) block, ``Fᵢ = −A[:, i]``, ``F₀ = −b``;
* a second-order cone (t, u) becomes its arrow LMI [[t, uᵀ], [u, t·I]] ⪰ 0 (SDPA has no SOC);
* a PSD cone becomes a matrix block, its unscaled lower triangle written as SDPA's upper one;
* equality rows are eliminated (x = x₀ + T z, see :mod:`._eliminate`) because ± inequality
  pairs leave no interior and DSDP then converges to a wrong answer; ``equalities="pairs"``
  writes the pairs anyway (CSDP copes);
* exponential and power cones have no SDPA form: :class:`~sdpkern.errors.ExportError`.

SDPA has no objective constant and no maximisation; both go into comment lines at the top
(``* sdpkern: offset …``, ``* sdpkern: sign …``), which solvers skip and :func:`read_sdpa`
honours, so the optimal value read back is the original model's.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from ..errors import ExportError, FormatError, ParameterError, path_error
from ._conic import Cones, ConicData, Elimination, Exported, _lower_indices
from ._eliminate import eliminate_equalities
from ._io import _CHUNK, format_values, write_atomic
from ._numfmt import float_field, format_lines, int_field

__all__ = ["write_sdpa", "read_sdpa", "parse_sdpa"]


_Placements = tuple[
    list[int], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]
]


def _positions(cones: Cones, pairs: bool) -> _Placements:
    """Where each standard-form row lands in the SDPA blocks.

    Returns the block sizes and, per placement, the source row, block (1-based), i, j (1-based,
    i ≤ j) and the factor the row's coefficients are multiplied by. A row may land in several
    places (the t of an arrow LMI sits on its whole diagonal; an equality in two LP rows).
    """
    off = cones.offsets()
    rows: list[NDArray[np.int64]] = []
    blks: list[NDArray[np.int64]] = []
    ii: list[NDArray[np.int64]] = []
    jj: list[NDArray[np.int64]] = []
    fac: list[NDArray[np.float64]] = []
    sizes: list[int] = []

    # LP block: equality pairs (if asked), non-negative rows, and 1-dimensional SOCs (t ≥ 0).
    lp_rows: list[NDArray[np.int64]] = []
    lp_fac: list[NDArray[np.float64]] = []
    if pairs and cones.zero:
        eq = np.arange(cones.zero)
        lp_rows += [eq, eq]
        lp_fac += [np.ones(cones.zero), -np.ones(cones.zero)]
    if cones.nonneg:
        lp_rows.append(np.arange(off["nonneg"], off["nonneg"] + cones.nonneg))
        lp_fac.append(np.ones(cones.nonneg))
    soc_starts: list[int] = (off["soc"] + np.concatenate([[0], np.cumsum(cones.soc)[:-1]])).astype(int).tolist()
    if not cones.soc:
        soc_starts = []
    for start, q in zip(soc_starts, cones.soc):
        if q == 1:
            lp_rows.append(np.array([start]))
            lp_fac.append(np.ones(1))
    if lp_rows:
        r = np.concatenate(lp_rows)
        sizes.append(-int(r.size))
        k = np.arange(1, r.size + 1)
        rows.append(r)
        blks.append(np.full(r.size, len(sizes)))
        ii.append(k)
        jj.append(k)
        fac.append(np.concatenate(lp_fac))

    for start, q in zip(soc_starts, cones.soc):
        if q == 1:
            continue
        sizes.append(int(q))
        blk = len(sizes)
        # t on the diagonal (q places), u_r at (1, 1 + r).
        rows += [np.full(q, start), start + np.arange(1, q)]
        ii += [np.arange(1, q + 1), np.ones(q - 1, dtype=np.int64)]
        jj += [np.arange(1, q + 1), np.arange(2, q + 1)]
        blks += [np.full(q, blk), np.full(q - 1, blk)]
        fac += [np.ones(q), np.ones(q - 1)]

    row = off["psd"]
    for n in cones.psd:
        sizes.append(int(n))
        i, j = _lower_indices(n)
        rows.append(row + np.arange(i.size))
        blks.append(np.full(i.size, len(sizes)))
        ii.append(j + 1)  # SDPA lists the upper triangle: (j, i) with j ≤ i
        jj.append(i + 1)
        fac.append(np.ones(i.size))
        row += i.size

    def cat(parts: list[NDArray[np.int64]]) -> NDArray[np.int64]:
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)

    factors = np.concatenate(fac).astype(float) if fac else np.zeros(0)
    return sizes, cat(rows), cat(blks), cat(ii), cat(jj), factors


def write_sdpa(data: ConicData, path: str | os.PathLike[str], *, equalities: str = "eliminate") -> Exported:
    """Write standard-form data as an SDPA sparse file.

    Parameters
    ----------
    data : ConicData
    path : path-like
        Written atomically.
    equalities : {"eliminate", "pairs"}
        How equality rows are written (see the module docstring).

    Returns
    -------
    Exported
        The data the file encodes and the map back to the original variables.

    Raises
    ------
    ExportError
        For an exponential or power cone, or a problem with nothing left to write.
    ParameterError
        For an ``equalities`` other than ``"eliminate"`` or ``"pairs"``.
    FileNotFoundError
        If the directory of ``path`` does not exist.
    """
    if equalities not in ("eliminate", "pairs"):
        raise ParameterError(f"equalities={equalities!r} is not known; choose 'eliminate' or 'pairs'")
    if data.cones.exp:
        raise ExportError(
            f"the SDPA format cannot hold an exponential cone (ExpCone; this problem has {data.cones.exp}); "
            "export it as .cbf instead"
        )
    if data.cones.pow:
        raise ExportError(
            f"the SDPA format cannot hold a power cone (PowCone3D; this problem has {len(data.cones.pow)}); "
            "export it as .cbf instead"
        )
    n_eq = data.cones.zero
    original = data
    if equalities == "eliminate":
        data, elim = eliminate_equalities(data)
    else:
        elim = Elimination.identity(data.n)
    if data.n == 0:
        raise ExportError("no variables are left after removing the equality constraints; nothing to write")

    sizes, prow, pblk, pi, pj, pfac = _positions(data.cones, pairs=equalities == "pairs")
    if not sizes:
        raise ExportError("the problem has no inequality or cone constraints; SDPA needs at least one block")

    # Entry values: F_0 = −b and F_v = −A[:, v] at each placement. One sparse product builds
    # them all (placements × (1 + n)); its CSC form lists them matrix by matrix.
    A = sp.csr_matrix(data.A)
    bA = sp.hstack([sp.csr_matrix(data.b.reshape(-1, 1)), A], format="csr")
    S = sp.csr_matrix((-pfac, (np.arange(prow.size), prow)), shape=(prow.size, A.shape[0]))
    F = sp.csc_matrix(S @ bA)
    F.sum_duplicates()  # also sorts the placements within each matrix
    F.eliminate_zeros()
    mat = np.repeat(np.arange(F.shape[1], dtype=np.int64), np.diff(F.indptr))
    own = F.indices
    val = F.data

    header = [
        '" sdpkern SDPA sparse file: minimise c^T x s.t. sum_i F_i x_i - F_0 >= 0\n',
        f"* sdpkern: offset {data.offset!r}\n",
        f"* sdpkern: sign {int(data.sign)}\n",
        f"* sdpkern: equalities {equalities} ({n_eq} rows)\n",
        # A file cut at a line end would otherwise read back as a different problem.
        f"* sdpkern: entries {val.size}\n",
        f"{data.n}\n",
        f"{len(sizes)}\n",
        " ".join(str(s) for s in sizes) + "\n",
    ]

    # "block i j" depends only on the placement: format it once per placement, gather per entry.
    where = format_lines([int_field(pblk), int_field(pi), int_field(pj)])
    where_block = np.frombuffer(where, dtype=np.uint8).reshape(pblk.size, -1)[:, :-1].T

    def pieces() -> Iterator[str | bytes]:
        yield "".join(header)
        # The costs must share one line: DSDP counts header lines to find the entries again and
        # CSDP reads the line as a whole.
        yield format_values(data.c, per_line=max(data.n, 1))
        for start in range(0, val.size, _CHUNK):
            stop = min(val.size, start + _CHUNK)
            yield format_lines(
                [int_field(mat[start:stop]), where_block[:, own[start:stop]], float_field(val[start:stop])]
            )

    out = write_atomic(path, pieces())
    data = dataclasses.replace(data, meta={**data.meta, "block_sizes": sizes})
    return Exported(path=out, format="sdpa", data=data, elimination=elim, original=original)


# ---------------------------------------------------------------------------------- reading

_PUNCT = re.compile(r"[{}(),]")
#: Size cap (variables, or entries of all blocks) beyond which a file is refused, not allocated.
_MAX_ROWS = 50_000_000


def read_sdpa(path: str | os.PathLike[str]) -> ConicData:
    """Read an SDPA sparse file into standard-form data.

    Diagonal blocks become non-negative rows, matrix blocks PSD cones (an arrow block written
    for an SOC reads back as a PSD block of the same feasible set). ``* sdpkern:`` comments
    restore the objective offset and sense.

    Raises
    ------
    FormatError
        For a malformed file; the message gives the line number.
    PathError
        For a file that cannot be read (:class:`~sdpkern.errors.PathNotFoundError` when missing).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="ascii", errors="strict")
    except OSError as exc:
        raise path_error(exc, path, action="read") from None
    except UnicodeDecodeError as exc:
        raise FormatError(f"{p}: line {text_line_of_offset(p, exc.start)}: not an ASCII text file") from None
    return parse_sdpa(text, name=str(p))


def text_line_of_offset(path: Path, offset: int) -> int:
    """1-based line number of a byte offset in a file."""
    with open(path, "rb") as fh:
        return fh.read(offset).count(b"\n") + 1


_ENTRY_LINE = re.compile(r"[ \t\r]*(?:\S+[ \t\r]+){4}\S+[ \t\r]*|[ \t\r]*")


def _entries_fast(body: list[str]) -> tuple[NDArray[np.float64] | None, list[int]]:
    """All entry lines at once when every line has five numeric fields (the common case)."""
    if not all(_ENTRY_LINE.fullmatch(line) for line in body):
        return None, []
    tokens = "\n".join(body).split()
    try:
        arr = np.array(tokens, dtype=float).reshape(-1, 5)
    except ValueError:
        return None, []
    nonempty = [i for i, line in enumerate(body) if line.strip()]
    return arr, nonempty


def _entries_slow(
    body: list[str], first_line: int, fail: Callable[[int, str], FormatError]
) -> tuple[NDArray[np.float64], list[int]]:
    """Line by line, raising a FormatError that names the first bad line."""
    fields = [ln.split() for ln in body]
    nonempty = [idx for idx, f in enumerate(fields) if f]
    arr = np.zeros((len(nonempty), 5))
    for r, idx in enumerate(nonempty):
        f = fields[idx]
        if len(f) != 5:
            raise fail(first_line + idx, f"an entry needs 5 fields (matrix block i j value), got {len(f)}")
        try:
            arr[r] = [float(v) for v in f]
        except ValueError:
            raise fail(first_line + idx, f"an entry has a non-numeric field: {body[idx].strip()!r}") from None
    return arr, nonempty


class _Tokens:
    """SDPA's header tokens: they may span lines and carry punctuation ("{2, 3, -2}")."""

    def __init__(self, lines: list[str], k: int, fail: Callable[[int, str], FormatError]) -> None:
        self.lines, self.k, self.fail = lines, k, fail
        self.toks: list[tuple[str, int]] = []

    def need(self, count: int, what: str, *, strip_comment: bool = False) -> list[tuple[str, int]]:
        """The next ``count`` tokens; with ``strip_comment`` text after "=" ("2 = mDIM") is skipped."""
        out: list[tuple[str, int]] = []
        while len(out) < count:
            while not self.toks:
                if self.k >= len(self.lines):
                    raise self.fail(
                        len(self.lines) + 1 if self.lines else 1, f"unexpected end of file while reading {what}"
                    )
                raw = self.lines[self.k]
                if strip_comment:
                    raw = raw.split("=")[0]
                self.toks.extend((t, self.k + 1) for t in _PUNCT.sub(" ", raw).split())
                self.k += 1
            out.append(self.toks.pop(0))
        return out

    def as_int(self, tok: tuple[str, int], what: str) -> int:
        try:
            v = float(tok[0])
        except ValueError:
            raise self.fail(tok[1], f"{what} must be an integer, got {tok[0]!r}") from None
        if not np.isfinite(v) or v != int(v):
            raise self.fail(tok[1], f"{what} must be an integer, got {tok[0]!r}")
        return int(v)

    def as_float(self, tok: tuple[str, int], what: str) -> float:
        try:
            v = float(tok[0])
        except ValueError:
            raise self.fail(tok[1], f"{what} must be a number, got {tok[0]!r}") from None
        if not np.isfinite(v):
            raise self.fail(tok[1], f"{what} must be finite, got {tok[0]!r}")
        return v


def parse_sdpa(text: str, name: str = "<string>") -> ConicData:
    """Parse the text of an SDPA sparse file (see :func:`read_sdpa`)."""
    lines = text.splitlines()

    def fail(lineno: int, what: str) -> FormatError:
        return FormatError(f"{name}: line {lineno}: {what}")

    k, offset, sign, entries = _read_comments(lines, fail)
    tokens = _Tokens(lines, k, fail)
    m, sizes, c = _read_header(tokens)
    # Entries: "matno block i j value", one per line.
    body = lines[tokens.k :]
    first_line = tokens.k + 1
    arr, nonempty = _entries_fast(body)
    if arr is None:  # something is off: the line-by-line pass finds and names it
        arr, nonempty = _entries_slow(body, first_line, fail)
    linenos = first_line + np.asarray(nonempty, dtype=np.int64)
    if entries is not None and arr.shape[0] != entries[0]:
        raise fail(
            entries[1],
            f"the file has {arr.shape[0]} entries but its '* sdpkern: entries' comment says {entries[0]}: "
            "it was cut short or edited",
        )
    mat, blk, ii, jj, val = _checked_entries(arr, linenos, m, sizes, fail)
    A, b, cones = _sdpa_standard_form(mat, blk, ii, jj, val, m, sizes)
    return ConicData(c=c, A=A, b=b, cones=cones, offset=offset, sign=sign, meta={"format": "sdpa", "path": name})


def _read_comments(
    lines: list[str], fail: Callable[[int, str], FormatError]
) -> tuple[int, float, int, tuple[int, int] | None]:
    """The leading comments: (first header line, offset, sign, (stated entry count, its line) or None)."""
    offset = 0.0
    sign = 1
    entries: tuple[int, int] | None = None
    k = 0
    while k < len(lines) and (not lines[k].strip() or lines[k].lstrip()[:1] in ('"', "*")):
        s = lines[k].strip()
        me = re.match(r"\*\s*sdpkern:\s*entries\s+(\S+)", s)
        if me:
            if not me.group(1).isdigit():
                raise fail(k + 1, f"bad sdpkern entries comment {me.group(1)!r}")
            entries = (int(me.group(1)), k + 1)
        mt = re.match(r"\*\s*sdpkern:\s*(offset|sign)\s+(\S+)", s)
        if mt:
            try:
                if mt.group(1) == "offset":
                    offset = float(mt.group(2))
                else:
                    sign = int(mt.group(2))
            except ValueError:
                raise fail(k + 1, f"bad sdpkern {mt.group(1)} comment {mt.group(2)!r}") from None
            if not np.isfinite(offset) or sign not in (1, -1):
                raise fail(k + 1, "sdpkern offset must be finite and sign ±1")
        k += 1
    return k, offset, sign, entries


def _read_header(t: _Tokens) -> tuple[int, list[int], NDArray[np.float64]]:
    """m, the block sizes and the cost vector, each checked against the size cap."""
    (tm,) = t.need(1, "the number of variables", strip_comment=True)
    m = t.as_int(tm, "the number of variables")
    if m < 1:
        raise t.fail(tm[1], f"the number of variables must be ≥ 1, got {m}")
    t.toks.clear()  # anything after m on its line is a comment
    (tb,) = t.need(1, "the number of blocks", strip_comment=True)
    nblocks = t.as_int(tb, "the number of blocks")
    if nblocks < 1:
        raise t.fail(tb[1], f"the number of blocks must be ≥ 1, got {nblocks}")
    t.toks.clear()
    size_toks = t.need(nblocks, "the block sizes")
    sizes = [t.as_int(tok, "a block size") for tok in size_toks]
    for size, tok in zip(sizes, size_toks):
        if size == 0:
            raise t.fail(tok[1], "a block size must be nonzero")
    rows_needed = sum(-s if s < 0 else s * (s + 1) // 2 for s in sizes)
    if rows_needed > _MAX_ROWS:
        raise t.fail(
            size_toks[-1][1],
            f"the blocks are implausibly large ({rows_needed} matrix entries; this reader stops at {_MAX_ROWS})",
        )
    t.toks.clear()
    if m > _MAX_ROWS:
        raise t.fail(tm[1], f"the number of variables ({m}) is implausibly large")
    c = np.array([t.as_float(tok, "a cost") for tok in t.need(m, "the cost vector")])
    if t.toks:
        # The cost vector's last line has more numbers than m.
        raise t.fail(t.toks[0][1], f"the cost vector has more than m = {m} numbers")
    return m, sizes, c


_Ints = NDArray[np.int64]


def _checked_entries(
    arr: NDArray[np.float64],
    linenos: _Ints,
    m: int,
    sizes: list[int],
    fail: Callable[[int, str], FormatError],
) -> tuple[_Ints, _Ints, _Ints, _Ints, NDArray[np.float64]]:
    """(matrix, block, i ≤ j, value) of every entry, each index in range and no entry twice."""

    def first_bad(mask: NDArray[np.bool_], what: str) -> None:
        if mask.any():
            raise fail(int(linenos[np.argmax(mask)]), what)

    if arr.size:
        first_bad(
            ~np.isfinite(arr).all(axis=1) | (arr[:, :4] != np.round(arr[:, :4])).any(axis=1),
            "matrix, block, i and j must be integers and the value finite",
        )
    mat, blk, ii, jj = (arr[:, q].astype(np.int64) for q in range(4))
    nblocks = len(sizes)
    first_bad((mat < 0) | (mat > m), f"matrix number must be in 0..{m}")
    first_bad((blk < 1) | (blk > nblocks), f"block number must be in 1..{nblocks}")
    signed = np.asarray(sizes, dtype=np.int64)[np.clip(blk, 1, nblocks) - 1]
    bsize = np.abs(signed)
    first_bad((ii < 1) | (jj < 1) | (ii > bsize) | (jj > bsize), "i and j must lie inside the block")
    first_bad((signed < 0) & (ii != jj), "an entry of a diagonal block must have i == j")
    ii, jj = np.minimum(ii, jj), np.maximum(ii, jj)
    # Duplicates are ambiguous (summed? overwritten?), so refuse them.
    key = np.stack([mat, blk, ii, jj], axis=1)
    if key.shape[0]:
        order = np.lexsort(key.T[::-1])
        ks = key[order]
        dup = np.zeros(ks.shape[0], dtype=bool)
        dup[1:] = (ks[1:] == ks[:-1]).all(axis=1)
        where = np.zeros_like(dup)
        where[order] = dup
        first_bad(where, "duplicate entry (the same matrix, block, i, j appears twice)")
    return mat, blk, ii, jj, arr[:, 4]


def _sdpa_standard_form(
    mat: _Ints, blk: _Ints, ii: _Ints, jj: _Ints, val: NDArray[np.float64], m: int, sizes: list[int]
) -> tuple[sp.csr_matrix, NDArray[np.float64], Cones]:
    """S = Σ F_i x_i − F_0 as b − A x ∈ K: diagonal (and 1×1) blocks first as non-negative rows,
    then each matrix block as a PSD cone (lower triangle, column by column)."""
    sizes_arr = np.asarray(sizes, dtype=np.int64)
    is_lp = (sizes_arr < 0) | (sizes_arr == 1)
    lp_len = np.where(is_lp, np.abs(sizes_arr), 0)
    lp_start = np.concatenate([[0], np.cumsum(lp_len)[:-1]])
    n_lp = int(lp_len.sum())
    psd_orders = [int(s) for s in sizes_arr if s > 1]
    psd_len = np.where(~is_lp, sizes_arr * (sizes_arr + 1) // 2, 0)
    psd_start = n_lp + np.concatenate([[0], np.cumsum(psd_len)[:-1]])
    b_idx = blk - 1
    # Lower-triangle column-major index of (row=j, col=i) with i ≤ j in an n-block:
    nb = sizes_arr[b_idx]
    col = ii - 1
    rw = jj - 1
    tri = col * nb - col * (col - 1) // 2 + (rw - col)
    row = np.where(is_lp[b_idx], lp_start[b_idx] + ii - 1, psd_start[b_idx] + tri)
    n_rows = n_lp + int(psd_len.sum())
    # S = b − A x  =>  b = −F_0, A = −F_i.
    is0 = mat == 0
    b = np.zeros(n_rows)
    np.add.at(b, row[is0], -val[is0])
    A = sp.csr_matrix((-val[~is0], (row[~is0], mat[~is0] - 1)), shape=(n_rows, m))
    return A, b, Cones(zero=0, nonneg=n_lp, psd=tuple(psd_orders))
