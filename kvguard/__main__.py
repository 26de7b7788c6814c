import os
import sys
from pathlib import Path

# ``python -m kvguard`` puts the working directory first on sys.path, and the working
# directory is usually the tree being checked: a ``lint_rules`` package there must not be
# imported as kvguard's own (unless kvguard itself runs from there: a source checkout).
_here = Path(__file__).resolve().parents[1]
if sys.path and sys.path[0] in ("", os.getcwd()) and Path(os.getcwd()).resolve() != _here:
    del sys.path[0]

from kvguard.cli import main  # noqa: E402

main()
