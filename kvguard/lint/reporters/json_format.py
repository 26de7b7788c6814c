"""The JSON report (schema in docs/json-format.md; ``schema_version`` changes on breaking edits)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from kvguard import __version__
from kvguard.lint.reporters import Report

SCHEMA_VERSION = 1


def render(report: Report) -> str:
    names = {rule.code: rule.name for rule in report.rules}
    findings: list[dict[str, Any]] = [
        {
            "code": f.code,
            "name": names.get(f.code, ""),
            "message": f.message,
            "path": f.path,
            "line": f.span.line,
            "column": f.span.column,
            "end_line": f.span.end_line,
            "end_column": f.span.end_column,
            "flow": [
                {"path": s.path, "line": s.line, "column": s.column, "message": s.message} for s in f.flow
            ],
            "fix_hint": f.fix_hint,
            "fix": {"description": f.fix.description} if f.fix is not None else None,
            "uncertain": f.uncertain or None,
            "fingerprint": f.fingerprint,
        }
        for f in report.result.findings
    ]
    document = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "kvguard", "version": __version__},
        "findings": findings,
        "summary": {
            "files_checked": report.result.files_checked,
            "findings": len(findings),
            "suppressed": report.result.suppressed,
            "uncertain_not_shown": report.result.uncertain,
            "baselined": report.result.baselined,
            "by_code": dict(sorted(Counter(f.code for f in report.result.findings).items())),
        },
    }
    return json.dumps(document, indent=2) + "\n"
