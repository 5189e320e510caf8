"""Vectorised decimal formatting of integer and float columns into text lines.

Python's ``repr`` costs about half a microsecond per float on the machines this runs on,
which alone made writing the m = 100 hyperkernel SDP slower than CVXPY's compilation of it.
Here every column becomes a block of characters of one width, built with whole-array
integer arithmetic; tokens are right-aligned (padded with leading spaces, which every reader
of these whitespace-separated formats skips), so the blocks are stacked and written as they
are: no Python-level work per entry and no compaction pass.

Floats are written in scientific notation with 15 significant digits when that provably
reads back to the same double and 17 otherwise (17 always suffice), trailing zeros dropped;
see :func:`float_field`. The rounding is done in x87 extended precision (64-bit mantissa); on
platforms whose ``long double`` is no wider than a double every value goes through ``repr``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..errors import ExportError

__all__ = ["format_lines", "int_field", "float_field"]

_EXTENDED = np.finfo(np.longdouble).nmant >= 63
_ZERO = ord("0")
_SPACE = ord(" ")
#: 10^k in extended precision for k in [-_P, _P] (a table: powl on arrays is slow).
_P = 360
_POW10 = np.power(np.longdouble(10), np.arange(-_P, _P + 1).astype(np.longdouble))
_POW10_I = 10 ** np.arange(18, dtype=np.int64)

#: A field is a (width, k) block of character codes: one column of text, one row per entry.
Field = NDArray[np.uint8]


def _digits(values: NDArray[np.int64], places: int) -> NDArray[np.uint8]:
    """Decimal digits (character codes, leading zeros kept) of integers in [0, 10^places).

    Shape (places, k). Works on 9-digit parts in int32, whose division is several times
    faster than int64's.
    """
    out = np.empty((places, values.size), dtype=np.uint8)
    rest = values
    col = places - 1
    while col >= 0:
        take = min(9, col + 1)
        if col + 1 > 9:
            hi = rest // 1_000_000_000
            part = (rest - hi * 1_000_000_000).astype(np.int32)
            rest = hi
        else:
            part = rest.astype(np.int32)
        for _ in range(take):
            q = part // 10
            out[col] = part - q * 10
            part = q
            col -= 1
    out += _ZERO
    return out


def _ndigits(a: NDArray[np.int64]) -> NDArray[np.int64]:
    """Number of decimal digits of non-negative integers (1 for zero)."""
    return np.searchsorted(_POW10_I, a, side="right").clip(min=1)


def int_field(values: NDArray[np.integer]) -> Field:
    """Integers, right-aligned in one width."""
    v = np.asarray(values, dtype=np.int64).ravel()
    a = np.abs(v)
    nd = _ndigits(a)
    neg = v < 0
    width = int(nd.max(initial=1)) + int(neg.any())
    d = _digits(a, width)
    # leading zeros -> spaces (a digit at place p from the left is padding if p < width − nd)
    pad = np.arange(width)[:, None] < (width - nd)[None, :]
    np.putmask(d, pad, _SPACE)
    if neg.any():
        rows = np.flatnonzero(neg)
        d[width - 1 - nd[rows], rows] = ord("-")
    return d


def float_field(values: NDArray[np.floating]) -> Field:
    """Floats in scientific notation, right-aligned, that read back to the same doubles.

    Every value is first rounded to 17 significant digits in extended precision: the decimal
    is within 0.5 + 0.03 units of the 17th digit of the value, less than half the gap to the
    neighbouring doubles, so it reads back exactly. The 15-digit rounding of those digits is
    used instead when it is provably within 0.45 of that gap (integer arithmetic on the digits
    plus the extended-precision remainder), which prints 0.1 as ``1e-01`` rather than
    ``1.0000000000000001e-01``. Exponents have two digits, or three in a block that needs them.

    Raises
    ------
    ExportError
        For NaN or infinite values (no file format here can hold them).
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    if not np.all(np.isfinite(v)):
        raise ExportError("cannot write NaN or infinite values (no file format here can hold them); check the data")
    k = v.size
    if not _EXTENDED:  # no wider type to certify digits with
        return _repr_field(v)
    a = np.abs(v)
    nz = a != 0.0
    # Decimal exponent (zeros get 0) and the value scaled to 17 digits, in extended precision.
    ex = np.floor(np.log10(np.where(nz, a, 1.0))).astype(np.int64)
    ld = a.astype(np.longdouble)
    scaled = ld * _POW10[16 - ex + _P]
    # log10 can be off by one next to powers of ten: fix the exponent where it was.
    off = nz & ((scaled >= np.longdouble(1e17)) | (scaled < np.longdouble(1e16)))
    if off.any():
        ex[off] += np.where(scaled[off] >= np.longdouble(1e17), 1, -1)
        scaled[off] = ld[off] * _POW10[16 - ex[off] + _P]
    Ml = np.rint(scaled)
    # Rounding up may reach 10^17 (9.99…95 -> 10.0…): renormalise to 17 places.
    top = Ml >= np.longdouble(1e17)
    if top.any():
        ex[top] += 1
        scaled[top] = ld[top] * _POW10[16 - ex[top] + _P]
        Ml[top] = np.rint(scaled[top])
    M = Ml.astype(np.int64)
    e = ex
    d = _digits(M, 17)  # (17, k) digit characters of the 17-digit rounding
    # A 15-digit rounding can only pass the test below if the last two digits are 99, 00 or 01.
    last2 = (d[15].astype(np.int16) - _ZERO) * 10 + (d[16].astype(np.int16) - _ZERO)
    near = np.flatnonzero(nz & ((last2 <= 1) | (last2 == 99)))
    use15 = np.zeros(k, dtype=bool)
    if near.size:
        M17 = M[near]
        M15 = (M17 + 50) // 100
        r = (scaled[near] - Ml[near]).astype(np.float64)  # value − decimal, in 17th-digit units
        dist = np.abs((M15 * 100 - M17).astype(np.float64) - r) + 0.03
        # the gap to the next double below is the smaller one (they differ at powers of 2)
        gap = np.spacing(np.nextafter(a[near], 0.0))
        # dist is in units of 10^(e−16); compare in those units (extended range: subnormals)
        ok = dist <= 0.45 * (gap.astype(np.longdouble) * _POW10[16 - e[near] + _P]).astype(np.float64)
        use15[near] = ok
        Mn = np.where(ok, M15 * 100, M17)
        carry = Mn >= 10**17  # the 15-digit rounding carried into an 18th place
        Mn[carry] //= 10
        en = e[near]
        en[carry] += 1
        M[near] = Mn
        e[near] = en
    ae = np.abs(e)
    ew = 3 if (ae >= 100).any() else 2
    out = np.empty((21 + ew, k), dtype=np.uint8)
    # Mantissa area: 19 columns = sign, d0, '.', 16 digits. Values whose 17 digits end in a
    # nonzero digit (most data) fill it completely; the others ("nice" values, the ones
    # shortened to 15 digits, and zero) are rebuilt right-aligned.
    neg = v < 0
    out[0] = np.where(neg, ord("-"), _SPACE)
    out[1] = d[0]
    out[2] = ord(".")
    out[3:19] = d[1:]
    nice = ~nz | use15 | (d[16] == _ZERO)
    lead = 0 if (neg & ~nice).any() else 1
    part = np.flatnonzero(nice)
    if part.size:
        mant, start = _short_mantissas(M[part], neg[part] & nz[part])
        out[:19, part] = mant
        lead = min(lead, int(start.min())) if part.size < k else int(start.min())
    out[19] = ord("e")
    out[20] = np.where(e < 0, ord("-"), ord("+"))
    out[21:] = _digits(ae, ew)
    return out[lead:]


def _short_mantissas(M: NDArray[np.int64], neg: NDArray[np.bool_]) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """Right-aligned mantissas of 17-place digit integers with their trailing zeros dropped.

    Returns the (19, k) block and the column where each token starts (sign included).
    """
    k = M.size
    # Trailing zeros, counted on the shrinking set of values that still end in 0.
    Mt = M.copy()
    ndig = np.full(k, 17, dtype=np.int64)
    ndig[M == 0] = 1
    act = np.flatnonzero(M != 0)
    while act.size:
        z = Mt[act] % 10 == 0
        act = act[z]
        if not act.size:
            break
        Mt[act] //= 10
        ndig[act] -= 1
    dt = _digits(Mt, 17)  # right-aligned; leading zeros blanked next
    mant = np.full((19, k), _SPACE, dtype=np.uint8)
    mant[2:] = dt
    np.putmask(mant[2:], np.arange(17)[:, None] < (17 - ndig)[None, :], _SPACE)
    cols = np.arange(k)
    multi = ndig > 1
    first = 19 - ndig  # column of d0; with more digits it moves left to make room for the point
    d0 = mant[first, cols]
    mant[first[multi] - 1, cols[multi]] = d0[multi]
    mant[first[multi], cols[multi]] = ord(".")
    start = np.where(multi, first - 1, first)
    mant[start[neg] - 1, cols[neg]] = ord("-")
    return mant, start - neg


def _repr_field(v: NDArray[np.float64]) -> Field:
    """Fallback: Python's repr of each value (shortest exact string), right-aligned."""
    strs = [repr(float(x)) for x in v]
    W = max((len(t) for t in strs), default=1)
    return np.frombuffer("".join(t.rjust(W) for t in strs).encode("ascii"), dtype=np.uint8).reshape(-1, W).T.copy()


def format_lines(fields: list[Field], sep: str = " ") -> bytes:
    """Stack fields side by side with ``sep`` between them and a newline after each row (ASCII)."""
    if not fields or fields[0].shape[1] == 0:
        return b""
    k = fields[0].shape[1]
    s = np.full((1, k), ord(sep), dtype=np.uint8)
    parts: list[NDArray[np.uint8]] = []
    for i, f in enumerate(fields):
        if i:
            parts.append(s)
        parts.append(f)
    parts.append(np.full((1, k), ord("\n"), dtype=np.uint8))
    block = np.concatenate(parts, axis=0)
    return np.ascontiguousarray(block.T).tobytes()
