"""Finding fingerprints, and the baseline file that records findings a project accepts for now.

A fingerprint names a finding by what stays when code around it moves: the rule code, the
file's path relative to the project root, the qualified name of the function (or class)
around the flagged statement, the flagged source text without whitespace or comments, and
which occurrence of that text it is in that function. Not the line, not the message (its
wording changes between kvguard versions), not the path that reaches it (an edit to a caller
must not make an old finding new). SARIF's ``partialFingerprints`` carry it too.

The baseline file (docs/adopting.md) is JSON: ``{"version": 1, "findings": [...]}``, one
entry per finding with its code, path, function, source text and fingerprint, sorted, so that
rewriting it after a change gives a small diff.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePath
from typing import Any

from kvguard.lint.findings import Finding

BASELINE_VERSION = 1
# The function name of a statement at module level.
MODULE_LEVEL = "<module>"
# Only so much of the flagged text is written for people to read; all of it is hashed.
_SHOWN_SOURCE = 120


class BaselineError(Exception):
    """A baseline file that cannot be read or is not one (exit status 2)."""


@dataclass(frozen=True)
class Entry:
    fingerprint: str
    code: str
    path: str
    function: str
    source: str


# A string literal (kept) or a comment (dropped), for normalising source text.
_STRING_OR_COMMENT = re.compile(r"(\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*')|#[^\n]*")
_TRAILING_COMMA = re.compile(r",(?=[)\]}])")


def normalised(source: str) -> str:
    """Source text as a formatter cannot change it: no comments, no whitespace, no trailing
    comma before a closing bracket (``f(\\n    a,\\n)`` is ``f(a)``)."""
    without_comments = _STRING_OR_COMMENT.sub(lambda match: match.group(1) or "", source)
    return _TRAILING_COMMA.sub("", "".join(without_comments.split()))


def fingerprinted(findings: Sequence[Finding], read_text: Callable[[str], str | None]) -> list[Finding]:
    """``findings``, their paths relative to the project root (absolute outside it), with
    their fingerprints set. ``read_text`` gives a finding's file text (None if it cannot be
    read). The occurrence index counts within ``findings``: give them all."""
    keys = _keys(findings, str, read_text)
    # The n-th finding of one code on the same text in the same function, in source order.
    seen: Counter[_Key] = Counter()
    occurrence = [0] * len(findings)
    for index in sorted(range(len(findings)), key=lambda i: (keys[i], findings[i].span)):
        occurrence[index] = seen[keys[index]]
        seen[keys[index]] += 1
    return [
        replace(finding, fingerprint=_digest(key, nth))
        for finding, key, nth in zip(findings, keys, occurrence, strict=True)
    ]


def baseline_entries(
    findings: Sequence[Finding], root: Path, read_text: Callable[[str], str | None]
) -> list[Entry]:
    """The baseline entries of fingerprinted findings, their paths as shown (relative to the
    working directory, or absolute)."""
    keys = _keys(findings, lambda path: project_path(path, root), read_text)
    return [
        Entry(finding.fingerprint, code, path, function, _shown(source))
        for finding, (code, path, function, source) in zip(findings, keys, strict=True)
    ]


# (code, path relative to the project root, enclosing function, normalised source text)
_Key = tuple[str, str, str, str]


def _keys(
    findings: Sequence[Finding], relative: Callable[[str], str], read_text: Callable[[str], str | None]
) -> list[_Key]:
    lines: dict[str, list[str]] = {}
    scopes: dict[str, _Scopes] = {}
    keys = []
    for finding in findings:
        if finding.path not in lines:
            text = read_text(finding.path) or ""
            lines[finding.path] = text.splitlines()
            scopes[finding.path] = _Scopes(text)
        source = normalised(_flagged_text(finding, lines[finding.path]))
        keys.append((finding.code, relative(finding.path), scopes[finding.path].around(finding), source))
    return keys


def _digest(key: _Key, occurrence: int) -> str:
    return hashlib.blake2b(
        "\0".join((*key, str(occurrence))).encode("utf-8", "surrogateescape"), digest_size=16
    ).hexdigest()


def project_path(path: str, root: Path) -> str:
    """A finding's path relative to the project root (posix), or absolute if outside it."""
    absolute = Path(path).absolute()
    try:
        return absolute.relative_to(root.absolute()).as_posix()
    except ValueError:
        return PurePath(absolute).as_posix()


def _flagged_text(finding: Finding, lines: list[str]) -> str:
    """The text the finding's span covers; for a point span (a diagnostic, a comment), the
    rest of its line."""
    span = finding.span
    if not 1 <= span.line <= len(lines):
        return ""
    if (span.end_line, span.end_column) <= (span.line, span.column):
        return lines[span.line - 1][span.column - 1 :]
    last = min(span.end_line, len(lines))
    covered = lines[span.line - 1 : last]
    if len(covered) == 1:
        return covered[0][span.column - 1 : span.end_column - 1]
    return "\n".join([covered[0][span.column - 1 :], *covered[1:-1], covered[-1][: span.end_column - 1]])


def _shown(source: str) -> str:
    return source if len(source) <= _SHOWN_SOURCE else source[: _SHOWN_SOURCE - 3] + "..."


# Nodes whose children may be statements (a definition inside an ``if``, a ``try``'s handler).
_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)


class _Scopes:
    """The functions and classes of one file, to name the innermost one around a line."""

    def __init__(self, text: str) -> None:
        self._spans: list[tuple[int, int, str]] = []
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return  # an unparsable file's findings are named by text alone
        self._collect(tree, "")

    def _collect(self, node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                self._spans.append((first, child.end_lineno or child.lineno, name))
                self._collect(child, f"{name}.")
            elif isinstance(child, _HOLDS_STATEMENTS):  # expressions define no function
                self._collect(child, prefix)

    def around(self, finding: Finding) -> str:
        line = finding.span.line
        inner = [span for span in self._spans if span[0] <= line <= span[1]]
        return max(inner, key=lambda span: span[0])[2] if inner else MODULE_LEVEL


def read_baseline(path: Path) -> frozenset[str]:
    """The fingerprints a baseline file records."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(
            f"baseline {path}: no such file (write it with `kvguard check --write-baseline {path}`)"
        ) from None
    except OSError as error:
        raise BaselineError(f"baseline {path}: cannot read: {error.strerror}") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise BaselineError(f"baseline {path}: not JSON: {error}") from None
    if not isinstance(document, dict) or document.get("version") != BASELINE_VERSION:
        found = document.get("version") if isinstance(document, dict) else None
        raise BaselineError(
            f"baseline {path}: not a kvguard baseline of version {BASELINE_VERSION} (version: {found!r})"
        )
    findings = document.get("findings")
    if not isinstance(findings, list) or not all(
        isinstance(entry, dict) and isinstance(entry.get("fingerprint"), str) for entry in findings
    ):
        raise BaselineError(f"baseline {path}: 'findings' must be a list of entries with a 'fingerprint'")
    return frozenset(entry["fingerprint"] for entry in findings)


def write_baseline(path: Path, entries: Iterable[Entry]) -> None:
    """Write ``entries`` as a baseline file (sorted, one entry per line group, stable)."""
    ordered = sorted(entries, key=lambda e: (e.path, e.function, e.code, e.source, e.fingerprint))
    document: dict[str, Any] = {
        "version": BASELINE_VERSION,
        "tool": "kvguard",
        "findings": [
            {
                "code": entry.code,
                "path": entry.path,
                "function": entry.function,
                "source": entry.source,
                "fingerprint": entry.fingerprint,
            }
            for entry in ordered
        ],
    }
    try:
        path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        raise BaselineError(f"baseline {path}: cannot write: {error.strerror}") from None
