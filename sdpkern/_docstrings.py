"""Docstring fragments: a parameter that means the same in several functions is described once.

``fill_doc(fragments)`` returns a decorator that replaces every line of a docstring consisting of
``{name}`` alone by ``fragments[name]``, indented like that line (the docstring-fragment pattern
of scikit-learn and SciPy). Other braces in a docstring are left alone.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping
from typing import TypeVar

__all__ = ["fill_doc"]

T = TypeVar("T")


def fill_doc(fragments: Mapping[str, str]) -> Callable[[T], T]:
    """Decorator putting ``fragments[name]`` where a function's or class's docstring has a ``{name}`` line."""
    pattern = re.compile(r"^([ \t]*)\{(" + "|".join(map(re.escape, fragments)) + r")\}\n", flags=re.MULTILINE)

    def fill(match: re.Match[str]) -> str:
        return textwrap.indent(fragments[match.group(2)], match.group(1)) + "\n"

    def decorate(obj: T) -> T:
        obj.__doc__ = pattern.sub(fill, obj.__doc__ or "")
        return obj

    return decorate
