"""SARIF 2.1.0 for GitHub code scanning and other viewers: rule metadata with help pages,
locations relative to the project root (``%SRCROOT%``), fingerprints that follow a finding
across edits, and code flows for findings that carry a path."""

from __future__ import annotations

import json
from pathlib import Path, PurePath
from typing import Any

from kvguard import __version__
from kvguard.lint.baseline import project_path
from kvguard.lint.findings import Finding, FlowStep
from kvguard.lint.reporters import Report
from kvguard.lint.rule import Rule
from kvguard.lint.rule_docs import help_uri, page_markdown

_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# URIs of files in the project are relative to this base; the run says where it was.
_ROOT_BASE = "%SRCROOT%"
# The key of kvguard's fingerprint in partialFingerprints (versioned, as SARIF recommends).
FINGERPRINT_KEY = "kvguardFingerprint/v1"


class _Locator:
    """SARIF locations of findings, relative to the project root where they lie in it."""

    def __init__(self, root: Path) -> None:
        self._root = root

    def artifact(self, path: str) -> dict[str, str]:
        relative = project_path(path, self._root)
        if PurePath(relative).is_absolute():
            return {"uri": PurePath(relative).as_uri()}
        return {"uri": relative, "uriBaseId": _ROOT_BASE}

    def location(self, path: str, line: int, column: int, end_line: int, end_column: int) -> dict[str, Any]:
        return {
            "physicalLocation": {
                "artifactLocation": self.artifact(path),
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
    described: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": page.flags},
        "help": {"text": f"{page.why}\n\nFix: {page.fix}", "markdown": page_markdown(rule)},
        "defaultConfiguration": {"level": "error", "enabled": rule.default_enabled},
        "properties": {"tags": ["correctness", "cuda-streams"]},
    }
    uri = help_uri(rule)
    if uri is not None:
        described["helpUri"] = uri
    return described


def _flow(steps: tuple[FlowStep, ...], locator: _Locator) -> dict[str, Any]:
    return {
        "threadFlows": [
            {
                "locations": [
                    {
                        "location": {
                            **locator.location(step.path, step.line, step.column, step.line, step.column),
                            "message": {"text": step.message},
                        }
                    }
                    for step in steps
                ]
            }
        ]
    }


def _result(finding: Finding, rule_index: dict[str, int], locator: _Locator) -> dict[str, Any]:
    span = finding.span
    result: dict[str, Any] = {
        "ruleId": finding.code,
        # An uncertain finding (shown only on request) is a warning, an established one an error.
        "level": "warning" if finding.uncertain else "error",
        "message": {"text": finding.message + (f" ({finding.fix_hint})" if finding.fix_hint else "")},
        "locations": [locator.location(finding.path, span.line, span.column, span.end_line, span.end_column)],
    }
    if finding.fingerprint:
        result["partialFingerprints"] = {FINGERPRINT_KEY: finding.fingerprint}
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    if finding.flow:
        result["codeFlows"] = [_flow(finding.flow, locator)]
    if finding.uncertain:
        result["properties"] = {"uncertain": finding.uncertain}
    return result


def render(report: Report) -> str:
    rules = sorted(report.rules, key=lambda rule: rule.code)
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    root = report.result.root.absolute()
    locator = _Locator(root)
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
                # A directory's URI ends with a slash, or relative URIs would resolve beside it.
                "originalUriBaseIds": {_ROOT_BASE: {"uri": root.as_uri().rstrip("/") + "/"}},
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, rule_index, locator) for f in report.result.findings],
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"
