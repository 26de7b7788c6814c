"""How findings look: text for people, JSON and SARIF for tools, GitHub annotations for CI."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kvguard.lint.engine import CheckResult
from kvguard.lint.rule import Rule

# Lines of a file for showing context; reporters never parse.
SourceLines = Callable[[str], Sequence[str]]


@dataclass(frozen=True)
class Report:
    result: CheckResult
    rules: Sequence[type[Rule]]  # every rule that ran, for metadata
    source_lines: SourceLines
    quiet: bool = False


FORMATS = ("text", "json", "sarif", "github")


def render(report: Report, output_format: str) -> str:
    from kvguard.lint.reporters import github, json_format, sarif, text

    renderers: dict[str, Callable[[Report], str]] = {
        "text": text.render,
        "json": json_format.render,
        "sarif": sarif.render,
        "github": github.render,
    }
    return renderers[output_format](report)
