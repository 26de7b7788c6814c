"""``path:line:col: CODE message``, the source line with a caret, the path, a summary."""

from __future__ import annotations

from collections import Counter

from kvguard.lint.findings import Finding
from kvguard.lint.reporters import Report


def render(report: Report) -> str:
    lines: list[str] = []
    for finding in report.result.findings:
        lines.append(_headline(finding))
        if report.quiet:
            continue
        lines.extend(_context(finding, report))
        for step in finding.flow:
            lines.append(f"    via {step.path}:{step.line}:{step.column}: {step.message}")
        if finding.fix_hint:
            lines.append(f"    help: {finding.fix_hint}")
        if finding.fix is not None:
            lines.append(f"    fix (--fix): {finding.fix.description}")
        lines.append("")
    if not report.quiet:
        lines.append(_summary(report))
    return "\n".join(lines) + ("\n" if lines else "")


def _headline(finding: Finding) -> str:
    span = finding.span
    marked = f" [uncertain: {finding.uncertain}]" if finding.uncertain else ""
    return f"{finding.path}:{span.line}:{span.column}: {finding.code} {finding.message}{marked}"


def _context(finding: Finding, report: Report) -> list[str]:
    source = report.source_lines(finding.path)
    number = finding.span.line
    if not 1 <= number <= len(source):
        return []
    text = source[number - 1].rstrip("\r\n").expandtabs(1)
    start = finding.span.column
    end = finding.span.end_column if finding.span.end_line == number else len(text) + 1
    width = max(1, min(end, len(text) + 1) - start)
    gutter = " " * len(str(number))
    return [
        f" {gutter} |",
        f" {number} | {text}",
        f" {gutter} | {' ' * (start - 1)}{'^' * width}",
    ]


def _summary(report: Report) -> str:
    result = report.result
    files = f"{result.files_checked} file{'s' if result.files_checked != 1 else ''} checked"
    if result.files_for_context:
        files += f", {result.files_for_context} more read for context"
    suppressed = f", {result.suppressed} suppressed" if result.suppressed else ""
    if result.baselined:
        suppressed += f", {result.baselined} in the baseline"
    if result.uncertain:
        suppressed += f", {result.uncertain} uncertain not shown (--include-uncertain)"
    if not result.findings:
        return f"All checks passed ({files}{suppressed})."
    counts = Counter(f.code for f in result.findings)
    by_code = ", ".join(f"{count} {code}" for code, count in sorted(counts.items()))
    total = len(result.findings)
    in_files = len({f.path for f in result.findings})
    fixable = sum(1 for f in result.findings if f.fix is not None)
    pages = ", ".join(f"kvguard explain {code}" for code in sorted(counts))
    return (
        f"Found {total} finding{'s' if total != 1 else ''} ({by_code}) in {in_files} "
        f"file{'s' if in_files != 1 else ''} ({files}{suppressed})."
        + (f" {fixable} fixable with --fix (--diff to preview)." if fixable else "")
        + f"\nWhat each rule flags and how to fix it: {pages}."
    )
