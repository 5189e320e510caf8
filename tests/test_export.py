"""Export to SDPA (.dat-s) and CBF (.cbf): round trips, refusals, malformed files, atomicity.

The round-trip criterion (issue 8): write -> read -> rebuild a cvxpy.Problem -> solve with
Clarabel reproduces the in-process optimum to 1e-6 relative, for both formats.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp
from export_problems import PROBLEMS, as_cvxpy, reference_value, rel_err
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdpkern import export
from sdpkern.errors import ExportError, FormatError
from sdpkern.export._eliminate import eliminate_equalities
from sdpkern.export._io import format_rows, format_values, write_atomic
from sdpkern.export._numfmt import _repr_field, float_field, format_lines, int_field
from sdpkern.export.cbf import parse_cbf
from sdpkern.export.sdpa import parse_sdpa

ROUND_TRIP_RTOL = 1e-6
SUFFIXES = [".dat-s", ".cbf"]


# ------------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_round_trip_reproduces_optimum(name: str, suffix: str, tmp_path: Path) -> None:
    problem = PROBLEMS[name]()
    ref = reference_value(problem)
    path = tmp_path / f"{name}{suffix}"
    export.write(problem, path)
    rebuilt, _ = export.to_cvxpy(export.read(path))
    rebuilt.solve(solver=cp.CLARABEL)
    assert rebuilt.status == cp.OPTIMAL
    assert rel_err(rebuilt.value, ref) <= ROUND_TRIP_RTOL, (rebuilt.value, ref)


def test_kernel_problem_export_method(tmp_path: Path) -> None:
    kp = PROBLEMS["hyperkernel_sdp"]()
    ref = reference_value(kp)
    info = kp.export(tmp_path / "hk.dat-s")
    assert info.format == "sdpa" and info.path.exists()
    rebuilt, _ = export.to_cvxpy(export.read(info.path))
    assert rel_err(rebuilt.solve(solver=cp.CLARABEL), ref) <= ROUND_TRIP_RTOL


def test_cbf_round_trip_is_exact_on_the_data(tmp_path: Path) -> None:
    """CBF holds the standard form as is: reading gives back the same numbers, bit for bit."""
    for name in ("socp", "lmi_max", "hyperkernel_sdp"):
        data = export.conic_data(PROBLEMS[name]())
        export.write(data, tmp_path / "p.cbf")
        back = export.read(tmp_path / "p.cbf")
        assert back.cones == data.cones
        assert back.sign == data.sign and back.offset == data.offset
        np.testing.assert_array_equal(back.c, data.c)
        np.testing.assert_array_equal(back.b, data.b)
        assert (back.A != data.A).nnz == 0


# approx=True is the subject: CVXPY warns that it writes the power as SOC constraints
@pytest.mark.filterwarnings("ignore:Power atom with exponent:UserWarning")
@pytest.mark.parametrize("approx", [True, False])
def test_cbf_exponential_and_power_cones(approx: bool, tmp_path: Path) -> None:
    x = cp.Variable(3)
    prob = cp.Problem(
        cp.Maximize(cp.log(x[0]) + cp.power(x[1], 0.3, approx=approx) - cp.exp(x[2]) + 1.0),
        [cp.sum(x) <= 2, x >= 0.05],
    )
    ref = prob.solve(solver=cp.CLARABEL)
    export.write(prob, tmp_path / "e.cbf")
    rebuilt, _ = export.to_cvxpy(export.read(tmp_path / "e.cbf"))
    assert rel_err(rebuilt.solve(solver=cp.CLARABEL), ref) <= ROUND_TRIP_RTOL


def test_maximize_sense_survives(tmp_path: Path) -> None:
    prob = PROBLEMS["lmi_max"]()
    ref = reference_value(prob)
    for suffix in SUFFIXES:
        export.write(prob, tmp_path / f"m{suffix}")
        data = export.read(tmp_path / f"m{suffix}")
        assert data.sign == -1
        rebuilt, _ = export.to_cvxpy(data)
        assert isinstance(rebuilt.objective, cp.Maximize)
        assert rel_err(rebuilt.solve(solver=cp.CLARABEL), ref) <= ROUND_TRIP_RTOL
    assert "OBJSENSE\nMAX" in (tmp_path / "m.cbf").read_text()


# ------------------------------------------------------------------------- SDPA specifics
def test_sdpa_has_no_equality_pairs_and_maps_back(tmp_path: Path) -> None:
    prob = PROBLEMS["lp_eq"]()
    ref = reference_value(prob)
    info = export.write(prob, tmp_path / "lp.dat-s")
    assert info.data.cones.zero == 0 and info.original.cones.zero == 3
    text = info.path.read_text()
    assert "* sdpkern: equalities eliminate (3 rows)" in text
    # The file's variables, solved in process and mapped back, satisfy the equalities.
    rebuilt, z = export.to_cvxpy(export.read(info.path))
    rebuilt.solve(solver=cp.CLARABEL)
    x = info.elimination.expand(z.value)
    orig = info.original
    np.testing.assert_allclose(orig.A[:3] @ x, orig.b[:3], atol=1e-9)
    assert rel_err(orig.objective(x), ref) <= ROUND_TRIP_RTOL


def test_sdpa_pairs_option_writes_a_diagonal_pair_per_equality(tmp_path: Path) -> None:
    prob = PROBLEMS["lp_eq"]()
    info = export.write(prob, tmp_path / "lp.dat-s", equalities="pairs")
    data = export.read(info.path)
    base = info.original
    assert data.cones.nonneg == base.cones.nonneg + 2 * base.cones.zero
    rebuilt, _ = export.to_cvxpy(data)
    assert rel_err(rebuilt.solve(solver=cp.CLARABEL), reference_value(prob)) <= ROUND_TRIP_RTOL


def test_sdpa_soc_is_an_arrow_block(tmp_path: Path) -> None:
    x = cp.Variable(3)
    prob = cp.Problem(cp.Minimize(-x[0] - x[1]), [cp.norm(x[:2]) <= 1 + x[2], x[2] <= 0.5, x[2] >= 0])
    info = export.write(prob, tmp_path / "soc.dat-s")
    sizes = info.data.meta["block_sizes"]
    assert 3 in sizes  # the arrow LMI of the 3-dimensional cone
    read = export.read(info.path)
    assert 3 in read.cones.psd
    rebuilt, _ = export.to_cvxpy(read)
    assert rel_err(rebuilt.solve(solver=cp.CLARABEL), prob.solve(solver=cp.CLARABEL)) <= ROUND_TRIP_RTOL


def test_psd_scaling_is_undone() -> None:
    """Off-diagonal PSD rows of CVXPY's SCS data carry √2; the standard form has the entries."""
    X = cp.Variable((2, 2), symmetric=True)
    prob = cp.Problem(cp.Minimize(cp.trace(X)), [X >> 0, X[0, 1] == 3.0])
    data = export.conic_data(prob)
    start = data.cones.offsets()["psd"]
    rows = data.A[start : start + 3].toarray()
    # b − A x holds (X00, X10, X11) unscaled: each row has a single −1 on its variable.
    assert np.allclose(np.sort(np.abs(rows).sum(axis=1)), [1.0, 1.0, 1.0])


def test_elimination_inconsistent_equalities_are_refused() -> None:
    x = cp.Variable(2)
    # Coupled rows (no singleton column) with contradictory right-hand sides.
    prob = cp.Problem(cp.Minimize(cp.sum(x)), [x[0] + x[1] == 1, 2 * x[0] + 2 * x[1] == 3, x >= -5])
    with pytest.raises(ExportError, match="inconsistent"):
        eliminate_equalities(export.conic_data(prob))


def test_elimination_handles_redundant_rows() -> None:
    x = cp.Variable(3)
    prob = cp.Problem(
        cp.Minimize(x @ np.array([1.0, 2.0, 3.0])),
        [x[0] + x[1] == 1, 2 * x[0] + 2 * x[1] == 2, x[1] + x[2] == 1, x >= 0],
    )
    ref = prob.solve(solver=cp.CLARABEL)
    reduced, elim = eliminate_equalities(export.conic_data(prob))
    assert reduced.cones.zero == 0
    rebuilt, z = export.to_cvxpy(reduced)
    assert rel_err(rebuilt.solve(solver=cp.CLARABEL), ref) <= ROUND_TRIP_RTOL


# ---------------------------------------------------------------------------------- refusals
def test_sdpa_refuses_exponential_cone_and_names_it(tmp_path: Path) -> None:
    x = cp.Variable()
    prob = cp.Problem(cp.Minimize(cp.exp(x)), [x >= 1])
    with pytest.raises(ExportError, match="exponential cone"):
        export.write(prob, tmp_path / "e.dat-s")
    assert not (tmp_path / "e.dat-s").exists()
    assert list(tmp_path.iterdir()) == []


def test_sdpa_refuses_power_cone_and_names_it(tmp_path: Path) -> None:
    x = cp.Variable()
    prob = cp.Problem(cp.Maximize(cp.power(x, 0.3, approx=False)), [x <= 2])
    with pytest.raises(ExportError, match="power cone"):
        export.write(prob, tmp_path / "p.dat-s")


def test_unknown_suffix_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="suffix"):
        export.write(PROBLEMS["socp"](), tmp_path / "p.txt")


def test_unset_parameter_is_refused(tmp_path: Path) -> None:
    lam = cp.Parameter(nonneg=True, name="lam")
    x = cp.Variable()
    with pytest.raises(ExportError, match="lam"):
        export.write(cp.Problem(cp.Minimize(lam * x), [x >= 1]), tmp_path / "u.cbf")


def test_integer_problems_are_refused(tmp_path: Path) -> None:
    x = cp.Variable(2, integer=True)
    with pytest.raises(ExportError, match="integer"):
        export.write(cp.Problem(cp.Minimize(cp.sum(x)), [x >= 0]), tmp_path / "i.cbf")


# -------------------------------------------------------------------------------- atomicity
def test_interrupted_write_leaves_no_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "out.dat-s"
    target.write_text("old contents\n")

    def pieces():
        yield "first part\n"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, pieces())
    assert target.read_text() == "old contents\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.dat-s"]


def test_write_failure_in_writer_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sdpkern.export.sdpa as sdpa_mod

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sdpa_mod, "float_field", boom)
    with pytest.raises(KeyboardInterrupt):
        export.write(PROBLEMS["sdp_var"](), tmp_path / "x.dat-s")
    assert list(tmp_path.iterdir()) == []


def test_written_file_has_ordinary_permissions(tmp_path: Path) -> None:
    path = tmp_path / "p.cbf"
    export.write(PROBLEMS["socp"](), path)
    mask = os.umask(0o022)
    os.umask(mask)
    assert (path.stat().st_mode & 0o777) == (0o666 & ~mask)


# --------------------------------------------------------------------------- number format
@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=40))
def test_float_formatting_reads_back_exactly(values: list[float]) -> None:
    v = np.array(values)
    text = format_values(v, per_line=7).decode()
    back = np.array([float(t) for t in text.split()])
    assert np.array_equal(back, v)  # equal as numbers (−0.0 reads back as 0.0 == −0.0)


def test_float_formatting_edge_values() -> None:
    v = np.array(
        [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            1 / 3,
            1e23,
            5e-324,
            2.2250738585072014e-308,
            1.7976931348623157e308,
            9.999999999999999e22,
            123456789012345678.0,
            -9.5,
            0.3,
        ]
    )
    text = format_values(v, per_line=1).decode().split()
    assert [float(t) for t in text] == v.tolist()
    assert text[2] == "1e+000" or text[2].lstrip() in ("1e+00", "1e+000")
    assert text[4] in ("1e-01", "1e-001")  # 15 digits suffice: no 1.0000000000000001e-01
    fields = [int_field(np.array([3, -12, 0])), float_field(np.array([1.5, -2.0, 0.0]))]
    rows = format_lines(fields).decode().splitlines()
    assert [r.split() for r in rows] == [["3", "1.5e+00"], ["-12", "-2e+00"], ["0", "0e+00"]]


def test_float_formatting_wide_ranges_exact() -> None:
    rng = np.random.default_rng(7)
    v = np.concatenate(
        [
            rng.standard_normal(5000),
            np.nextafter(0, 1) * rng.integers(1, 2**52, 3000),  # subnormals
            10.0 ** rng.uniform(-323, 308, 5000) * rng.choice([-1.0, 1.0], 5000),
            np.round(rng.standard_normal(3000) * 1e3) / 10.0 ** rng.integers(0, 6, 3000),  # "nice" decimals
            2.0 ** rng.integers(-1074, 1023, 1000),  # powers of two (uneven gaps)
        ]
    )
    back = np.array([float(t) for t in format_values(v, per_line=9).split()])
    assert np.array_equal(back, v)


def test_repr_fallback_matches() -> None:
    v = np.array([0.1, -2.5, 1e300])
    field = _repr_field(v)
    assert [float(format_lines([field[:, [i]]])) for i in range(v.size)] == v.tolist()


def test_format_rows_chunks_do_not_change_output(monkeypatch: pytest.MonkeyPatch) -> None:
    import sdpkern.export._io as io_mod

    ints = [np.arange(10), np.arange(10)[::-1]]
    vals = np.linspace(-1, 1, 10)
    whole = b"".join(format_rows(ints, vals)).decode()
    monkeypatch.setattr(io_mod, "_CHUNK", 3)
    chunked = b"".join(io_mod.format_rows(ints, vals)).decode()
    assert [ln.split() for ln in whole.splitlines()] == [ln.split() for ln in chunked.splitlines()]


# ------------------------------------------------------------------------- malformed files
VALID_SDPA = """" a comment
* sdpkern: offset 0.5
2 = mDIM
2 = nBLOCK
{-2, 2}
1.0 -1.0
0 1 1 1 1.0
1 1 1 1 1.0
2 1 2 2 1.0
1 2 1 2 1.0
2 2 1 1 1.0
2 2 2 2 1.0
"""

BAD_SDPA = [
    ("", 1, "end of file"),
    ("x\n", 1, "integer"),
    ("2\n0\n", 2, "blocks"),
    ("2\n1\n0\n1 1\n", 3, "nonzero"),
    ("2\n1\n2\n1\n", 5, "end of file"),
    ("2\n1\n2\n1 2 3\n", 4, "more than"),
    ("2\n1\n2\n1 2\n0 1 1\n", 5, "5 fields"),
    ("2\n1\n2\n1 2\n0 1 1 1 abc\n", 5, "non-numeric"),
    ("2\n1\n2\n1 2\n3 1 1 1 1.0\n", 5, "matrix number"),
    ("2\n1\n2\n1 2\n0 2 1 1 1.0\n", 5, "block number"),
    ("2\n1\n2\n1 2\n0 1 3 1 1.0\n", 5, "inside the block"),
    ("2\n1\n-2\n1 2\n0 1 1 2 1.0\n", 5, "i == j"),
    ("2\n1\n2\n1 2\n0 1 1 1 1.0\n0 1 1 1 2.0\n", 6, "duplicate"),
    ("2\n1\n2\n1 2\n0 1 1 1 nan\n", 5, "finite"),
    ("2\n1\n2\n1 2\n0 1 1.5 1 1.0\n", 5, "integers"),
    ("2\n1\n2\ninf 2\n", 4, "finite"),
    ("1\n1\n1000000\n1\n", 3, "implausibly large"),
]


def test_valid_sdpa_parses() -> None:
    data = parse_sdpa(VALID_SDPA)
    assert data.offset == 0.5 and data.cones.nonneg == 2 and data.cones.psd == (2,)
    np.testing.assert_array_equal(data.c, [1.0, -1.0])


@pytest.mark.parametrize(("text", "line", "what"), BAD_SDPA)
def test_malformed_sdpa_names_the_line(text: str, line: int, what: str) -> None:
    with pytest.raises(FormatError, match=rf"line {line}\b.*{what}"):
        parse_sdpa(text)


VALID_CBF = """# a comment
VER
3

OBJSENSE
MIN

VAR
2 1
F 2

CON
3 2
L+ 1
Q 2

PSDCON
1
2

OBJACOORD
2
0 1.0
1 -1.0

ACOORD
2
0 0 1.0
2 1 1.0

BCOORD
1
1 2.0

HCOORD
1
0 0 1 0 1.0

DCOORD
2
0 0 0 1.0
0 1 1 1.0
"""

BAD_CBF = [
    ("", 1, "empty"),
    ("VER\n9\n", 2, "version"),
    ("VAR\n", 1, "VER"),
    ("VER\n3\nFOO\n", 3, "keyword"),
    ("VER\n3\nOBJSENSE\nUP\n", 4, "MIN or MAX"),
    ("VER\n3\nVAR\n2 1\nF 3\n", 4, "add up"),
    ("VER\n3\nVAR\n2 1\nF\n", 5, "NAME dim"),
    ("VER\n3\nVAR\n2 1\nF 2\nCON\n1 1\nZZ 1\n", 8, "unsupported cone"),
    ("VER\n3\nVAR\n1 1\nF 1\nOBJACOORD\n1\n3 1.0\n", 8, "out of range"),
    ("VER\n3\nVAR\n1 1\nF 1\nOBJACOORD\n2\n0 1.0\n", 9, "end of file"),
    ("VER\n3\nVAR\n1 1\nF 1\nOBJACOORD\n1\n0 x\n", 8, "not a number"),
    ("VER\n3\nVAR\n1 1\nF 1\nOBJACOORD\n1\n0 1.0 2\n", 8, "expected 2 fields"),
    ("VER\n3\nVAR\n1 1\nF 1\nINT\n1\n0\n", 6, "not supported"),
    ("VER\n3\nVAR\n1 1\nF 1\nVAR\n1 1\nF 1\n", 6, "twice"),
    ("VER\n3\nVAR\n1 1\nF 1\nPSDCON\n1\n2\nHCOORD\n1\n0 0 2 0 1.0\n", 11, "outside the matrix"),
    ("VER\n3\nVAR\n2 1\nEXP 2\n", 5, "EXP cone has dimension 3"),
    ("VER\n3\nVAR\n3 1\n@0:POW 3\n", 5, "undefined"),
    ("VER\n3\nVAR\n1000000000 1\nF 1000000000\n", 3, "implausibly large"),
]


def test_valid_cbf_parses_and_solves() -> None:
    data = parse_cbf(VALID_CBF)
    assert data.cones.nonneg == 1 and data.cones.soc == (2,) and data.cones.psd == (2,)
    prob, _ = export.to_cvxpy(data)
    # min x0 − x1 s.t. x0 ≥ 0, |x1| ≤ 2, [[1, x0], [x0, 1]] ⪰ 0: optimum −2 at (0, 2).
    assert prob.solve(solver=cp.CLARABEL) == pytest.approx(-2.0, abs=1e-7)


@pytest.mark.parametrize(("text", "line", "what"), BAD_CBF)
def test_malformed_cbf_names_the_line(text: str, line: int, what: str) -> None:
    with pytest.raises(FormatError, match=rf"line {line}\b.*({what})"):
        parse_cbf(text)


def test_binary_file_is_a_format_error(tmp_path: Path) -> None:
    for suffix in SUFFIXES:
        p = tmp_path / f"bin{suffix}"
        p.write_bytes(b"2\n1\n\xff\xfe\x00\n")
        with pytest.raises(FormatError, match="line 3"):
            export.read(p)


# ------------------------------------------------------------------------------ fuzzing
def _mutations() -> st.SearchStrategy[tuple[str, str]]:
    """A valid file of either format with a few random edits (delete/duplicate/replace)."""
    fmt = st.sampled_from(["sdpa", "cbf"])
    junk = st.sampled_from(
        [
            "",
            "0",
            "-1",
            "1e999",
            "nan",
            "x",
            "{",
            "Q",
            "F 2",
            "VER",
            "1 1",
            "0 0 0 0 1",
            "99999999999",
            "1.5",
            "=",
            "*",
            '"',
            "#",
            "@0:POW 3",
            "PSDCON",
        ]
    )

    @st.composite
    def build(draw: st.DrawFn) -> tuple[str, str]:
        kind = draw(fmt)
        lines = (VALID_SDPA if kind == "sdpa" else VALID_CBF).splitlines()
        for _ in range(draw(st.integers(1, 4))):
            op = draw(st.sampled_from(["delete", "duplicate", "replace", "insert", "token"]))
            i = draw(st.integers(0, max(len(lines) - 1, 0)))
            if not lines:
                lines = [draw(junk)]
                continue
            if op == "delete":
                del lines[i]
            elif op == "duplicate":
                lines.insert(i, lines[i])
            elif op == "replace":
                lines[i] = draw(junk)
            elif op == "insert":
                lines.insert(i, draw(junk))
            else:
                toks = lines[i].split() or [""]
                toks[draw(st.integers(0, len(toks) - 1))] = draw(junk)
                lines[i] = " ".join(toks)
        return kind, "\n".join(lines) + "\n"

    return build()


def _check_reader(kind: str, text: str) -> None:
    try:
        data = parse_sdpa(text) if kind == "sdpa" else parse_cbf(text)
    except FormatError as exc:
        assert re.search(r"line \d+", str(exc)), str(exc)
        return
    # Accepted files must give consistent data.
    assert data.A.shape == (data.cones.rows, data.n)
    assert isinstance(data.A, sp.csr_matrix)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutations())
def test_readers_fuzz_quick(case: tuple[str, str]) -> None:
    _check_reader(*case)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutations())
def test_readers_fuzz_10k(case: tuple[str, str]) -> None:
    _check_reader(*case)


@pytest.mark.slow
@settings(max_examples=5_000, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(["sdpa", "cbf"]))
def test_readers_fuzz_random_text(raw: bytes, kind: str) -> None:
    text = raw.decode("latin-1")
    _check_reader(kind, text)


def test_as_cvxpy_helper_is_consistent() -> None:
    # The shared helper used above returns the model inside a KernelProblem.
    kp = PROBLEMS["sdpm_degree4"]()
    assert as_cvxpy(kp) is kp.cvxpy
