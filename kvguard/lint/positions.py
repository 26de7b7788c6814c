"""Source positions of every node of a libcst module, in one code-generation pass.

The same positions as libcst's ``PositionProvider`` (syntactic ranges: leading and trailing
whitespace excluded) at a fraction of its cost: positions are plain tuples keyed by the node's
``id`` (a node's own ``__hash__`` is a Python call), a token moves the cursor by a newline count
instead of a regular expression, and the syntactic-position hook is a plain object rather than
a generator-based context manager. The nodes must outlive the answer. It builds on libcst's
code-generation state, as ``PositionProvider`` does; ``tests/lint/test_positions.py`` pins the
two to the same answers, so a libcst release that changes that state fails the suite.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import TracebackType

import libcst as cst
from libcst._nodes.internal import CodegenState

# (start line, start column, end line, end column); lines 1-based, columns 0-based.
Position = tuple[int, int, int, int]


def positions(module: cst.Module) -> dict[int, Position]:
    """Each node's position, keyed by ``id(node)``."""
    state = _PositionState(default_indent=module.default_indent, default_newline=module.default_newline)
    module._codegen(state)
    return state.found


@dataclass(frozen=False)
class _PositionState(CodegenState):
    found: dict[int, Position] = field(default_factory=dict)
    line: int = 1
    column: int = 0
    _starts: list[tuple[int, int]] = field(default_factory=list)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        newlines = value.count("\n")
        if newlines:
            self.line += newlines
            self.column = len(value) - value.rfind("\n") - 1
        else:
            self.column += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._starts.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        line, column = self._starts.pop()
        # A syntactic position recorded inside the node wins.
        self.found.setdefault(id(node), (line, column, self.line, self.column))

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> _SyntacticPosition:
        return _SyntacticPosition(self, node, start_node, end_node)


class _SyntacticPosition:
    """Records a node's position from the tokens generated inside the ``with`` block (or
    from the start of ``start_node`` and the end of ``end_node``)."""

    __slots__ = ("_end_node", "_line_column", "_node", "_start_node", "_state")

    def __init__(
        self,
        state: _PositionState,
        node: cst.CSTNode,
        start_node: cst.CSTNode | None,
        end_node: cst.CSTNode | None,
    ) -> None:
        self._state, self._node, self._start_node, self._end_node = state, node, start_node, end_node
        self._line_column = (state.line, state.column)

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        state = self._state
        line, column = self._line_column
        end_line, end_column = state.line, state.column
        if self._start_node is not None:
            line, column = state.found[id(self._start_node)][:2]
        if self._end_node is not None:
            end_line, end_column = state.found[id(self._end_node)][2:]
        state.found[id(self._node)] = (line, column, end_line, end_column)
