"""Suppression comments: read strictly, applied to findings, and which of them were used.

The documented forms, and nothing else, suppress:

- ``# kvguard: ignore[KVG001, KVG004] reason`` and a bare ``# kvguard: ignore`` (every code),
  on any line of the flagged statement;
- ``# kvguard: ignore-file[KVG001] reason`` and a bare ``# kvguard: ignore-file``, anywhere in
  the file, for the whole file;
- ``# noqa: KVG001`` (other tools' codes in the same comment are theirs).

A reason follows after whitespace and may not begin with a bracket, a parenthesis, ``=``,
``:``, ``,`` or a KVG code: those are misspelt code lists. A comment that starts like a
kvguard directive (``# kvguard:``, or ``# kvguard ignore...`` without the colon) and is not
one of the forms, or a ``# noqa`` without its colon that names a KVG code, suppresses
nothing and is reported (KVG101): a typo must never widen or silently drop a suppression.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from kvguard.lint.config import Settings
from kvguard.lint.facts import FileSummary, MalformedSuppression, Suppression
from kvguard.lint.files import is_excluded
from kvguard.lint.findings import Finding

CODE_PREFIX = "KVG"

_CODE = r"[A-Za-z]+[0-9]+"
_CODE_LIST = rf"\s*{_CODE}(?:\s*,\s*{_CODE}|\s+{_CODE})*\s*"
# A comment is read in parts, each from a '#': one comment may hold a noqa part and a kvguard
# part.
_PART = re.compile(r"#[^#]*")
_KVGUARD_FORM = re.compile(
    rf"#\s*kvguard\s*:\s*(?P<kind>ignore-file|ignore)(?:\[(?P<codes>{_CODE_LIST})\])?(?P<reason>\s.*)?",
    re.IGNORECASE | re.DOTALL,
)
# What reads as an attempt at a directive: "kvguard:" or "kvguard" then an "ignore" word.
# Prose that names kvguard ("# ordered for kvguard's sake") is not one.
_KVGUARD_ATTEMPT = re.compile(r"#\s*kvguard\b(?=\s*:|\s*[-_]?\s*ignore)", re.IGNORECASE)
_NOQA_FORM = re.compile(rf"#\s*noqa\s*:\s*(?P<codes>{_CODE}(?:\s*[,\s]\s*{_CODE})*)", re.IGNORECASE)
_NOQA_ATTEMPT = re.compile(r"#\s*noqa\b", re.IGNORECASE)
_OUR_CODE = re.compile(rf"\b{CODE_PREFIX}[0-9]+\b", re.IGNORECASE)
# How a misspelt code list begins when it is taken for a reason: ``ignore [KVG002]``.
_MISREAD_REASON = re.compile(rf"[\[\](){{}}=:,]|{CODE_PREFIX}[0-9]+\b", re.IGNORECASE)
_FILE_LEVEL_ATTEMPT = re.compile(r"ignore[\s_-]*files?\b", re.IGNORECASE)


class SuppressionComments(NamedTuple):
    valid: list[Suppression]
    malformed: list[MalformedSuppression]


def read_suppressions(text: str) -> SuppressionComments:
    """Every suppression comment of a file's text, the valid and the malformed."""
    valid: list[Suppression] = []
    malformed: list[MalformedSuppression] = []
    for line, column, comment in _comments(text):
        for part in _PART.finditer(comment):
            where = (line, column + part.start())
            written = part.group().rstrip()
            if _KVGUARD_ATTEMPT.match(written):
                kvguard = _kvguard_directive(written, *where)
                if isinstance(kvguard, Suppression):
                    valid.append(kvguard)
                else:
                    malformed.append(kvguard)
            elif _NOQA_ATTEMPT.match(written):
                noqa = _NOQA_FORM.match(written)
                if noqa is not None:
                    # Other tools' codes (E501, F401) share the comment; only ours count.
                    codes = tuple(c for c in _codes(noqa.group("codes")) if c.startswith(CODE_PREFIX))
                    if codes:
                        valid.append(Suppression(*where, codes))
                elif _OUR_CODE.search(written):
                    codes = _codes(" ".join(_OUR_CODE.findall(written)))
                    suggestion = f"# noqa: {', '.join(dict.fromkeys(codes))}"
                    malformed.append(MalformedSuppression(*where, written, suggestion))
    return SuppressionComments(valid, malformed)


def _kvguard_directive(written: str, line: int, column: int) -> Suppression | MalformedSuppression:
    form = _KVGUARD_FORM.fullmatch(written)
    reason = (form.group("reason") or "").strip() if form is not None else ""
    if form is not None and not _MISREAD_REASON.match(reason):
        file_level = form.group("kind").lower() == "ignore-file"
        return Suppression(line, column, _codes(form.group("codes") or ""), file_level)
    return MalformedSuppression(line, column, written, _meant(written))


def _meant(written: str) -> str:
    """The documented form a malformed kvguard directive most likely meant, or "" where its
    codes cannot be told (``ignore[]``, or a word that is not ``ignore``)."""
    codes = dict.fromkeys(_codes(" ".join(_OUR_CODE.findall(written))))
    directive = "ignore-file" if _FILE_LEVEL_ATTEMPT.search(written) else "ignore"
    return f"# kvguard: {directive}[{', '.join(codes)}]" if codes else ""


def _codes(raw: str) -> tuple[str, ...]:
    return tuple(code.upper() for code in re.split(r"[,\s]+", raw.strip()) if code)


def _comments(text: str) -> list[tuple[int, int, str]]:
    try:
        return [
            (token.start[0], token.start[1] + 1, token.string)
            for token in tokenize.generate_tokens(io.StringIO(text).readline)
            if token.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        # Untokenizable source: fall back to a line scan so suppressions still count.
        comments = []
        for number, line in enumerate(text.splitlines(), start=1):
            position = line.find("#")
            if position >= 0:
                comments.append((number, position + 1, line[position:]))
        return comments


# (path, suppression, the code it matched; "" for a bare one, which names every code)
SuppressionUse = tuple[str, Suppression, str]


def apply_suppressions(
    findings: Iterable[Finding],
    summaries: Iterable[FileSummary],
    settings: Settings,
    *,
    comments: bool = True,
) -> tuple[list[Finding], int]:
    """The findings that no per-file ignore or (with ``comments``) suppression comment removes,
    and how many were removed."""
    by_path = {summary.path: summary.suppressions for summary in summaries}
    ignored_by_pattern: dict[str, tuple[str, ...]] = {}
    kept: list[Finding] = []
    total = 0
    for finding in findings:
        total += 1
        if finding.path not in ignored_by_pattern:
            ignored_by_pattern[finding.path] = tuple(
                code
                for pattern, codes in settings.per_file_ignores
                if is_excluded(Path(finding.path), settings.root, [pattern])
                for code in codes
            )
        per_file = ignored_by_pattern[finding.path]
        if any(finding.code.startswith(code.upper()) or code.upper() == "ALL" for code in per_file):
            continue
        if not comments or next(_covering(finding, by_path.get(finding.path, [])), None) is None:
            kept.append(finding)
    return kept, total - len(kept)


def suppression_uses(findings: Iterable[Finding], summaries: Iterable[FileSummary]) -> set[SuppressionUse]:
    """Each comment that covers one of ``findings``, with the code it matched there."""
    by_path = {summary.path: summary.suppressions for summary in summaries}
    return {
        (finding.path, suppression, code)
        for finding in findings
        for suppression, code in _covering(finding, by_path.get(finding.path, []))
    }


def _covering(finding: Finding, suppressions: list[Suppression]) -> Iterator[tuple[Suppression, str]]:
    first, last = finding.statement_lines
    for suppression in suppressions:
        if not suppression.file_level and not first <= suppression.line <= last:
            continue
        if not suppression.codes:
            yield suppression, ""
        elif finding.code in suppression.codes:
            yield suppression, finding.code
