"""From bytes to a FileSummary: decoding, suppression comments, the token gate, parsing.

This is the unit of work a worker process runs for one file. libcst is imported only
when a file passes the gate, so a run over files that cannot hold a finding never pays
for it.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import TYPE_CHECKING

from kvguard.lint.api import passes_gate
from kvguard.lint.facts import Diagnostic, FileSummary, Suppression

if TYPE_CHECKING:
    from kvguard.lint.reader import Segment

_SUPPRESSION_HINT = re.compile(rb"kvguard|noqa", re.IGNORECASE)
_KVGUARD_COMMENT = re.compile(
    r"#\s*kvguard:\s*(?P<kind>ignore-file|ignore)(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE
)
_NOQA_COMMENT = re.compile(
    r"#\s*noqa:\s*(?P<codes>[A-Za-z]+[0-9]+(?:\s*[,\s]\s*[A-Za-z]+[0-9]+)*)", re.IGNORECASE
)
CODE_PREFIX = "KVG"


def decode(data: bytes) -> tuple[str | None, Diagnostic | None]:
    """Text of a Python file by its declared encoding (PEP 263, BOM), or why not."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        return None, Diagnostic(f"cannot determine the encoding: {error.msg}", error.lineno or 1)
    try:
        return data.decode(encoding), None
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        return None, Diagnostic(
            f"bytes not valid in the declared encoding {encoding}: {error.reason} "
            f"(byte 0x{data[error.start]:02x})",
            line,
            column,
        )
    except LookupError:
        return None, Diagnostic(f"unknown encoding '{encoding}' declared")


def read_suppressions(text: str) -> list[Suppression]:
    """``# kvguard: ignore[...]``, ``# kvguard: ignore-file[...]`` and ``# noqa: KVG...``."""
    found: list[Suppression] = []
    for line, column, comment in _comments(text):
        for match in _KVGUARD_COMMENT.finditer(comment):
            codes = _codes(match.group("codes") or "")
            file_level = match.group("kind").lower() == "ignore-file"
            found.append(Suppression(line, column + match.start(), codes, file_level))
        for match in _NOQA_COMMENT.finditer(comment):
            # Other tools' codes (E501, F401) share the comment; only ours count.
            codes = tuple(c for c in _codes(match.group("codes")) if c.startswith(CODE_PREFIX))
            if codes:
                found.append(Suppression(line, column + match.start(), codes))
    return found


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


def summarize(path: str, data: bytes) -> FileSummary:
    """Read one file into its summary; every failure becomes a diagnostic, never an error."""
    summary = FileSummary(path=path)
    text, problem = decode(data)
    if text is None:
        assert problem is not None
        summary.diagnostics.append(problem)
        return summary
    if _SUPPRESSION_HINT.search(data):
        summary.suppressions = read_suppressions(text)
    if not passes_gate(data):
        return summary
    summary.parsed = True
    _parse_into(summary, text)
    return summary


# CPython refuses more than 200 nested brackets; libcst's native parser can crash the
# process (not raise) on far deeper nesting, so such files are vetted by CPython first.
_BRACKET = re.compile(r"[\(\[\{\)\]\}]")
_CPYTHON_MAX_NESTING = 200


def _bracket_depth(text: str) -> int:
    """Upper bound of bracket nesting (brackets in strings and comments count too)."""
    depth = deepest = 0
    for match in _BRACKET.finditer(text):
        if match.group() in "([{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest


def _parse_into(summary: FileSummary, text: str) -> None:
    import libcst as cst

    from kvguard.lint.reader import ModuleReader

    if _bracket_depth(text) > _CPYTHON_MAX_NESTING:
        try:
            ast.parse(text)
        except SyntaxError as error:
            summary.diagnostics.append(
                Diagnostic(f"syntax error: {error.msg}", error.lineno or 1, error.offset or 1)
            )
            return
        except (RecursionError, MemoryError, ValueError):
            summary.diagnostics.append(Diagnostic("nesting too deep to parse"))
            return
    try:
        segments = _parse_segments(text)
    except cst.ParserSyntaxError as error:
        summary.diagnostics.append(_syntax_diagnostic(text, error))
        return
    except RecursionError:
        summary.diagnostics.append(Diagnostic("nesting too deep to parse"))
        return
    except Exception as error:  # libcst's native parser raises plain exceptions on odd input
        summary.diagnostics.append(Diagnostic(f"cannot parse: {type(error).__name__}: {error}"))
        return
    try:
        summary.code = ModuleReader(segments).read()
    except RecursionError:
        summary.diagnostics.append(Diagnostic("nesting too deep to analyse"))


# A line that starts a top-level statement (continuation lines of brackets and strings at
# column 0 are rare; when one is mistaken for a start, its piece fails to parse and the
# whole file is parsed instead).
_CONTINUATION_STARTS = (" ", "\t", "\n", "\r", "#", ")", "]", "}", "\f")
_DEFINITIONS = ("def ", "async def ", "class ", "@")
# Module-level statements longer than this that are not definitions are data (generated
# tables); the analysis skips them.
_GENERATED_PIECE_LINES = 2_000
_CLAUSE = re.compile(r"(?:else|elif|except|finally)\b")
# Pieces without gate tokens are still parsed when they can name things (imports, constants,
# import fallbacks) and are short; long ones (generated tables) are skipped.
_SHORT_PIECE_LINES = 25


def _parse_segments(text: str) -> list[Segment]:
    """Parse only the top-level statements the analysis needs, or the whole file if unsure."""
    import libcst as cst

    from kvguard.lint.reader import Segment

    pieces = _top_level_pieces(text)
    gated = [passes_gate(piece.encode("utf-8", "surrogatepass")) for _, piece in pieces]
    wanted = _with_callers(
        pieces, gated, [keep or _wanted(piece) for keep, (_, piece) in zip(gated, pieces, strict=True)]
    )
    if len(wanted) == len(pieces):
        return [Segment(cst.parse_module(text))]
    try:
        return [Segment(cst.parse_module(piece), first) for first, piece in wanted]
    except cst.ParserSyntaxError:
        return [Segment(cst.parse_module(text))]


# Top-level functions and classes only: method names (``get``, ``run``) are too common to
# find their callers by name.
_DEFINED = re.compile(r"^(?:async\s+)?(?:def|class)\s+(\w+)", re.MULTILINE)


def _with_callers(
    pieces: list[tuple[int, str]], gated: list[bool], wanted: list[bool]
) -> list[tuple[int, str]]:
    """The wanted pieces, and the definitions that call what the gated ones define (by name),
    to a fixed point: a caller carries the path into the copy, and its barriers, even when it
    names no stream itself."""
    names: set[str] = set()
    reached = list(gated)
    pending = [piece for (_, piece), keep in zip(pieces, gated, strict=True) if keep]
    while pending:
        fresh = {name for piece in pending for name in _DEFINED.findall(piece)} - names
        names |= fresh
        pending = []
        if not fresh:
            break
        calls = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, fresh))) + r")\s*\(")
        for index, (_, piece) in enumerate(pieces):
            if not reached[index] and piece.startswith(_DEFINITIONS) and calls.search(piece):
                reached[index] = wanted[index] = True
                pending.append(piece)
    return [entry for entry, keep in zip(pieces, wanted, strict=True) if keep]


def _wanted(piece: str) -> bool:
    """Whether a piece without gate names is parsed anyway: short ones can name things."""
    lines = piece.count("\n")
    relevant = lines <= _SHORT_PIECE_LINES
    if piece.startswith(_DEFINITIONS):
        return relevant
    if lines > _GENERATED_PIECE_LINES:
        return False  # a generated table, not code that launches copies
    return relevant or piece.startswith(("import ", "from ", "if ", "try:"))


def _top_level_pieces(text: str) -> list[tuple[int, str]]:
    """Split source into top-level statements (decorators stay with their definition)."""
    lines = text.splitlines(keepends=True)
    starts: list[int] = []
    after_decorator = False
    for number, line in enumerate(lines):
        if not line or line.startswith(_CONTINUATION_STARTS) or _CLAUSE.match(line):
            continue
        if not after_decorator:
            starts.append(number)
        after_decorator = line.startswith("@")
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = [*starts, len(lines)]
    return [(bounds[i] + 1, "".join(lines[bounds[i] : bounds[i + 1]])) for i in range(len(starts))]


def _syntax_diagnostic(text: str, error: Exception) -> Diagnostic:
    """CPython words syntax errors better than libcst's parser; use its message when it has one."""
    try:
        ast.parse(text)
    except SyntaxError as cpython:
        return Diagnostic(f"syntax error: {cpython.msg}", cpython.lineno or 1, cpython.offset or 1)
    except (RecursionError, MemoryError, ValueError):
        pass
    line = getattr(error, "raw_line", 1)
    column = getattr(error, "raw_column", 0) + 1
    message = str(getattr(error, "message", "")).splitlines()[0] or "invalid syntax"
    return Diagnostic(f"syntax error: {message}", line, column)
