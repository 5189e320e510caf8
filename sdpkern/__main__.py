"""``python -m sdpkern``: the ``sdpkern`` command (:mod:`sdpkern.apps.cli`)."""

from __future__ import annotations

import sys

from .apps.cli import main

if __name__ == "__main__":
    sys.exit(main())
