"""SARIF 2.1.0: rule metadata, locations, and code flows for findings that carry a path."""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any

from kvguard import __version__
from kvguard.lint.findings import Finding, FlowStep
from kvguard.lint.reporters import Report
from kvguard.lint.rule import Rule

_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri(path: str) -> str:
    pure = PurePath(path)
    return pure.as_uri() if pure.is_absolute() else pure.as_posix()


def _location(path: str, line: int, column: int, end_line: int, end_column: int) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": _uri(path)},
            "region": {
                "startLine": line,
                "startColumn": column,
                "endLine": end_line,
                "endColumn": end_column,
            },
        }
    }


def _rule(rule: type[Rule]) -> dict[str, Any]:
    page = rule.page
    markdown = (
        f"{page.flags}\n\n**Why it matters.** {page.why}\n\n**Bad**\n\n```python\n{page.bad}```\n\n"
        f"**Good**\n\n```python\n{page.good}```\n\n**Fix.** {page.fix}\n"
    )
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": page.flags},
        "help": {"text": f"{page.why}\n\nFix: {page.fix}", "markdown": markdown},
        "defaultConfiguration": {"level": "error", "enabled": rule.default_enabled},
        "properties": {"tags": ["correctness", "cuda-streams"]},
    }


def _flow(steps: tuple[FlowStep, ...]) -> dict[str, Any]:
    return {
        "threadFlows": [
            {
                "locations": [
                    {
                        "location": {
                            **_location(step.path, step.line, step.column, step.line, step.column),
                            "message": {"text": step.message},
                        }
                    }
                    for step in steps
                ]
            }
        ]
    }


def _result(finding: Finding, rule_index: dict[str, int]) -> dict[str, Any]:
    span = finding.span
    result: dict[str, Any] = {
        "ruleId": finding.code,
        # An uncertain finding (shown only on request) is a warning, an established one an error.
        "level": "warning" if finding.uncertain else "error",
        "message": {"text": finding.message + (f" ({finding.fix_hint})" if finding.fix_hint else "")},
        "locations": [_location(finding.path, span.line, span.column, span.end_line, span.end_column)],
    }
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    if finding.flow:
        result["codeFlows"] = [_flow(finding.flow)]
    if finding.uncertain:
        result["properties"] = {"uncertain": finding.uncertain}
    return result


def render(report: Report) -> str:
    rules = sorted(report.rules, key=lambda rule: rule.code)
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    document = {
        "$schema": _SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "kvguard",
                        "version": __version__,
                        "rules": [_rule(rule) for rule in rules],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, rule_index) for f in report.result.findings],
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"
