"""What a rule is: a code, its documentation page, its examples and a check over the model.

Rules say *what* is wrong; they read the project model and never source text. Each
rule's VALID and INVALID examples are its tests (one shared harness runs them all) and
part of its documentation.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from kvguard.lint.findings import Finding
from kvguard.lint.model import ProjectModel


@dataclass(frozen=True)
class Expect:
    """Where a finding must appear: 1-based line and column, in ``path`` for multi-file examples."""

    line: int
    column: int
    path: str = "example.py"


@dataclass(frozen=True)
class Example:
    """Code a rule must accept (VALID) or flag exactly at ``expect`` (INVALID).

    ``files`` maps relative paths to contents for examples that span modules; ``code`` is
    shorthand for a single ``example.py``.
    """

    code: str = ""
    expect: tuple[Expect, ...] = ()
    files: Mapping[str, str] = field(default_factory=dict)
    note: str = ""

    def sources(self) -> dict[str, str]:
        return dict(self.files) if self.files else {"example.py": self.code}


@dataclass(frozen=True)
class RulePage:
    """The page ``kvguard explain CODE`` prints."""

    flags: str
    why: str
    bad: str
    good: str
    fix: str
    references: tuple[str, ...] = ()


class Rule(ABC):
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    page: ClassVar[RulePage]
    default_enabled: ClassVar[bool] = True
    # Reads which suppression comments the other rules' findings used: runs after them, and
    # its findings are not themselves subject to suppression comments.
    judges_suppressions: ClassVar[bool] = False
    VALID: ClassVar[tuple[Example, ...]] = ()
    INVALID: ClassVar[tuple[Example, ...]] = ()

    @abstractmethod
    def check(self, model: ProjectModel) -> Iterable[Finding]:
        """Findings of this rule over the whole model."""
