"""What a check produces: findings with locations and the path that proves them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class Span(NamedTuple):
    """A source range; lines are 1-based, columns 1-based (as editors count them).

    A named tuple, not a dataclass: a file's lowered code holds hundreds of thousands of spans,
    and the cache reads them back as tuples at a third of a dataclass's cost."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class FlowStep:
    """One step of the path that leads to a finding (a call, a hand-off, the copy)."""

    path: str
    line: int
    column: int
    message: str


@dataclass(frozen=True)
class Edit:
    """One source change of a fix, located by the node it touches (1-based, as spans)."""

    path: str
    # "replace": the expression at ``span`` becomes ``text``; "insert-before": the statement
    # ``text`` goes before the statement at ``span``; "keyword": the call at ``span`` gets the
    # argument ``text``; "import": ``import text`` is added if the module lacks it;
    # "comments": the comments of the statement holding ``span`` (on its lines, and the block
    # just above it) get ``rewrites`` (regular expression, replacement) applied, so that a
    # comment describing what another edit changes stays true.
    kind: str
    span: Span
    text: str
    rewrites: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Fix:
    description: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Finding:
    path: str
    code: str
    message: str
    span: Span
    # The flagged statement's lines: a suppression on any of them applies.
    statement_lines: tuple[int, int]
    flow: tuple[FlowStep, ...] = ()
    fix_hint: str = ""
    fix: Fix | None = None
    # Why the hazard is not established (the code does not show which way the copy goes,
    # say); empty when it is. Uncertain findings are reported only when asked for.
    uncertain: str = ""
    # What names the finding across edits that move it (kvguard.lint.baseline).
    fingerprint: str = ""

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.span.line, self.span.column, self.code, self.message)
