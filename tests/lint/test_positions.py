"""kvguard's position pass answers exactly what libcst's PositionProvider answers."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from kvguard.lint.positions import positions

REPOSITORY = Path(__file__).resolve().parents[2]
SOURCES = [
    REPOSITORY / "kvguard" / "lint" / "evaluator.py",
    REPOSITORY / "kvguard" / "runtime" / "backend.py",
    REPOSITORY / "tests" / "lint" / "test_cli.py",
]


@pytest.mark.parametrize("path", SOURCES, ids=[p.name for p in SOURCES])
def test_positions_match_libcst(path: Path) -> None:
    module = cst.parse_module(path.read_text(encoding="utf-8") + "x = (\n    1,  # c\n)\r\ny = '''a\nb'''\n")
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    found = positions(module)
    assert {
        node: (r.start.line, r.start.column, r.end.line, r.end.column) for node, r in expected.items()
    } == {node: found[id(node)] for node in expected}
