"""Every Python snippet of README.md and docs/ runs as written, on its own, in seconds.

A user pastes one block into a fresh interpreter: so each ```python block runs alone in a fresh
process (in an empty working directory), with sdpkern's FutureWarnings (an old name in the docs)
and ConvergenceWarnings (an uncertified default solve) turned into errors. Blocks in other
languages (```console, ```text) are not run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Wall-clock bound of one snippet, imports included (a few seconds on an idle machine; generous
#: for a loaded one). The README's old quick start ran > 240 s.
SECONDS = 60.0

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)[ \t]*(?P<lang>[\w+-]*)")

_PRELUDE = """\
import warnings
from sklearn.exceptions import ConvergenceWarning
warnings.simplefilter("error", ConvergenceWarning)
warnings.filterwarnings("error", category=FutureWarning, module="sdpkern")
warnings.filterwarnings("error", category=FutureWarning, message=".*sdpkern")
"""


@dataclass(frozen=True)
class Snippet:
    path: str
    line: int
    code: str


def extract(path: Path) -> list[Snippet]:
    """The ```python blocks of a Markdown file (also indented ones inside list items), dedented."""
    snippets, lines = [], path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m["indent"], m["fence"], m["lang"].lower()
        body, start = [], i + 1
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1
        if lang in ("python", "py"):
            snippets.append(Snippet(str(path.relative_to(ROOT)), start + 1, textwrap.dedent("\n".join(body)) + "\n"))
    return snippets


def documents() -> list[Path]:
    skip = {"_build", "auto_examples"}  # the built site and the generated gallery
    return [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if not skip & set(p.parts))]


SNIPPETS = [s for path in documents() for s in extract(path)]


def test_extraction_finds_the_snippets() -> None:
    assert len(SNIPPETS) >= 14
    assert any(s.path == "README.md" for s in SNIPPETS)
    indented = [s for s in SNIPPETS if s.path == "docs/experiments.md"]
    assert len(indented) >= 3  # including the one inside a list item


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[f"{s.path}:{s.line}" for s in SNIPPETS])
def test_snippet_runs_as_written(snippet: Snippet, tmp_path: Path) -> None:
    compile(snippet.code, f"{snippet.path}:{snippet.line}", "exec")  # a syntax error names the block
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop("SDPKERN_PROBLEMS", None)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _PRELUDE + snippet.code],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=4 * SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{snippet.path}:{snippet.line} did not finish in {4 * SECONDS:.0f} s")
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 0, f"{snippet.path}:{snippet.line} failed:\n{proc.stderr[-3000:]}"
    assert elapsed < SECONDS, f"{snippet.path}:{snippet.line} took {elapsed:.1f} s"
    print(f"{snippet.path}:{snippet.line}: {elapsed:.1f} s")
