"""GitHub Actions workflow commands, in the shape ruff's ``--output-format github`` prints."""

from __future__ import annotations

from kvguard.lint.reporters import Report


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report) -> str:
    lines = []
    for f in report.result.findings:
        span = f.span
        properties = ",".join(
            [
                f"title={_property(f'kvguard ({f.code})')}",
                f"file={_property(f.path)}",
                f"line={span.line}",
                f"col={span.column}",
                f"endLine={span.end_line}",
                f"endColumn={span.end_column}",
            ]
        )
        message = f"{f.path}:{span.line}:{span.column}: {f.code} {f.message}"
        if f.uncertain:
            message += f" [uncertain: {f.uncertain}]"
        lines.append(f"::{'warning' if f.uncertain else 'error'} {properties}::{_data(message)}")
    return "".join(line + "\n" for line in lines)
