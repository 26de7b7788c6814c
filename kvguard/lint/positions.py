"""Source positions of every node of a libcst module, in one code-generation pass.

The same positions as libcst's ``PositionProvider`` (syntactic ranges: leading and trailing
whitespace excluded) at about a quarter of its cost: positions are plain tuples, and a token
moves the cursor by a newline count instead of a regular expression. It builds on libcst's
code-generation state, as ``PositionProvider`` does; ``tests/lint/test_positions.py`` pins the
two to the same answers, so a libcst release that changes that state fails the suite.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import libcst as cst
from libcst._nodes.internal import CodegenState

# (start line, start column, end line, end column); lines 1-based, columns 0-based.
Position = tuple[int, int, int, int]


def positions(module: cst.Module) -> dict[cst.CSTNode, Position]:
    state = _PositionState(default_indent=module.default_indent, default_newline=module.default_newline)
    module._codegen(state)
    return state.found


@dataclass(frozen=False)
class _PositionState(CodegenState):
    found: dict[cst.CSTNode, Position] = field(default_factory=dict)
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
        if node not in self.found:  # a syntactic position recorded inside the node wins
            self.found[node] = (line, column, self.line, self.column)

    @contextmanager
    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> Iterator[None]:
        line, column = self.line, self.column
        try:
            yield
        finally:
            end_line, end_column = self.line, self.column
            if start_node is not None:
                line, column = self.found[start_node][:2]
            if end_node is not None:
                end_line, end_column = self.found[end_node][2:]
            self.found[node] = (line, column, end_line, end_column)
