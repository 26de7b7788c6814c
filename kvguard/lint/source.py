"""From bytes to a FileSummary: decoding, suppression comments, the token gate, parsing.

This is the unit of work a worker process runs for one file. libcst is imported only
when a file passes the gate, so a run over files that cannot hold a finding never pays
for it.
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
import tokenize
from typing import TYPE_CHECKING

from kvguard.lint import serial
from kvguard.lint.api import passes_gate
from kvguard.lint.dependencies import module_shape
from kvguard.lint.facts import Diagnostic, FileSummary
from kvguard.lint.suppressions import read_suppressions

if TYPE_CHECKING:
    from kvguard.lint.reader import Segment

_SUPPRESSION_HINT = re.compile(rb"kvguard|noqa", re.IGNORECASE)


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


def summarize(path: str, data: bytes, callees: frozenset[str] = frozenset()) -> FileSummary:
    """Read one file into its summary; every failure becomes a diagnostic, never an error.
    ``callees``: names other files export that this one calls (it is parsed for those calls
    even when it passes no gate of its own)."""
    summary = FileSummary(path=path)
    text, problem = decode(data)
    if text is None:
        assert problem is not None
        summary.diagnostics.append(problem)
        return summary
    if _SUPPRESSION_HINT.search(data):
        summary.suppressions, summary.malformed_suppressions = read_suppressions(text)
    if not passes_gate(data) and not callees:
        summary.imported = _imported_names(text)
        summary.defined = tuple(sorted(set(_DEFINITION.findall(text))))
        return summary
    summary.parsed = True
    _parse_into(summary, text, callees)
    summary.uses = _uses(text)
    if summary.code is not None:
        summary.code_digest = hashlib.blake2b(serial.dumps(summary.code), digest_size=16).hexdigest()
        summary.shape = module_shape(summary.code)
    return summary


_DEFINITION = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)", re.MULTILINE)


def _imported_names(text: str) -> tuple[str, ...]:
    """The names ``from m import a, b as c`` statements bind from other modules (a, b)."""
    found: set[str] = set()
    for match in _FROM_IMPORT.finditer(text):
        for part in match.group(1).strip("()").replace("\\", " ").split(","):
            name = part.split()[0] if part.split() else ""
            if name.isidentifier():
                found.add(name)
    return tuple(sorted(found))


_IMPORT_FROM = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)", re.MULTILINE)
_IMPORT_AS = re.compile(r"^[ \t]*import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+(\w+))?[ \t]*$", re.MULTILINE)
_METHOD_CALL = re.compile(r"\.(\w+)\s*\(")
# A name called or whose attribute is read (``helper(``, ``Pool.make``), and a dotted name's
# method calls (``ops.swap_blocks(``).
_NAME_USED = re.compile(r"\b(\w+)\s*[(.]")
_DOTTED_CALL = re.compile(r"\b(\w+(?:\.\w+)*)\.(\w+)\s*\(")


def _uses(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """What this file may use from each module it imports: the imported names it calls or
    reads an attribute of, and every method name it calls (a helper class's method called on
    an object the analysis cannot place)."""
    methods = set(_METHOD_CALL.findall(text))
    # One scan of the text, not one per import: where each name is last used.
    last_use = {match.group(1): match.start() for match in _NAME_USED.finditer(text)}
    called_on: dict[str, set[str]] = {}
    for match in _DOTTED_CALL.finditer(text):
        parts = match.group(1).split(".")
        for start in range(len(parts)):  # ``self.ops.swap(`` calls ``swap`` on ``ops`` too
            called_on.setdefault(".".join(parts[start:]), set()).add(match.group(2))
    found: dict[str, set[str]] = {}
    for match in _IMPORT_FROM.finditer(text):
        module = match.group(1)
        # A class imported only to annotate a parameter still has its methods called here.
        found.setdefault(module, set())
        for part in match.group(2).strip("()").replace("\\", " ").split(","):
            words = part.split()
            if not words or not words[0].isidentifier():
                continue
            local = words[2] if len(words) == 3 and words[1] == "as" else words[0]
            if last_use.get(local, -1) >= match.end():
                found[module].add(words[0])
    for match in _IMPORT_AS.finditer(text):
        module, alias = match.group(1), match.group(2) or match.group(1)
        used = called_on.get(alias, set())
        if used:
            found.setdefault(module, set()).update(used)
    return tuple((module, tuple(sorted(names | methods))) for module, names in sorted(found.items()))


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


def _parse_into(summary: FileSummary, text: str, callees: frozenset[str] = frozenset()) -> None:
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
        segments, summary.exported = _parse_segments(text, callees)
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


def _parse_segments(text: str, callees: frozenset[str]) -> tuple[list[Segment], tuple[str, ...]]:
    """Parse only the top-level statements the analysis needs, or the whole file if unsure;
    with the names of the top-level definitions that lead to what it needs."""
    import libcst as cst

    from kvguard.lint.reader import Segment

    pieces = _top_level_pieces(text)
    gated = [passes_gate(piece.encode("utf-8", "surrogatepass")) for _, piece in pieces]
    # The definitions other files use from this one, and what they call here in turn.
    defining = _with_callees(pieces, [bool(callees) and _defines(piece, callees) for _, piece in pieces])
    reached = [keep or defines for keep, defines in zip(gated, defining, strict=True)]
    wanted, exported = _with_callers(
        pieces,
        reached,
        [keep or _wanted(piece) for keep, (_, piece) in zip(reached, pieces, strict=True)],
        callees,
    )
    # And what those callers call here in turn (the backend class a reached engine makes).
    kept = {first for first, _ in wanted}
    wanted = [
        entry
        for entry, keep in zip(pieces, _with_callees(pieces, [f in kept for f, _ in pieces]), strict=True)
        if keep
    ]
    if len(wanted) == len(pieces):
        return [Segment(cst.parse_module(text))], exported
    # The wanted pieces as one module, parsed once, with where each piece starts in it and in
    # the file.
    joined: list[str] = []
    starts: list[tuple[int, int]] = []
    line = 1
    for first, piece in wanted:
        if not piece.endswith(("\n", "\r")):
            piece += "\n"
        starts.append((line, first))
        joined.append(piece)
        line += len(piece.splitlines())
    try:
        return [Segment(cst.parse_module("".join(joined)), tuple(starts))], exported
    except cst.ParserSyntaxError:
        return [Segment(cst.parse_module(text))], exported


# Top-level functions and classes only: method names (``get``, ``run``) are too common to
# find their callers by name.
_DEFINED = re.compile(r"^(?:async\s+)?(?:def|class)\s+(\w+)", re.MULTILINE)


def _with_callers(
    pieces: list[tuple[int, str]], gated: list[bool], wanted: list[bool], callees: frozenset[str]
) -> tuple[list[tuple[int, str]], tuple[str, ...]]:
    """The wanted pieces, and the definitions that call what the gated ones define (or the
    ``callees`` other files export), by name, to a fixed point: a caller carries the path into
    the copy, and its barriers, even when it names no stream itself. With the names the
    reached definitions define."""
    names: set[str] = set()
    reached = list(gated)
    # What another file imports from here may be used without a call (a class as the type of
    # a parameter whose methods are then called, a function handed on as a callback).
    imported = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, callees))) + r")\b") if callees else None
    pending = [piece for (_, piece), keep in zip(pieces, gated, strict=True) if keep]
    first = True
    while pending or first:
        fresh = {name for piece in pending for name in _DEFINED.findall(piece)} - names
        if first:
            fresh |= callees
            first = False
        names |= fresh
        pending = []
        if not fresh:
            break
        alternatives = "|".join(sorted(map(re.escape, fresh)))
        calls = re.compile(r"\b(?:" + alternatives + r")\s*\(")
        # A subclass of a reached class inherits what leads to the copy.
        bases = re.compile(r"^class\s+\w+\s*\([^)]*\b(?:" + alternatives + r")\b")
        for index, (_, piece) in enumerate(pieces):
            if (
                not reached[index]
                and piece.startswith(_DEFINITIONS)
                and (calls.search(piece) or bases.search(piece) or (imported and imported.search(piece)))
            ):
                reached[index] = wanted[index] = True
                pending.append(piece)
    # A base class defined here of a reached class (the interface a connector implements)
    # stands for it: code that holds the interface calls the reached class's methods.
    based_on = {
        base for (_, piece), keep in zip(pieces, reached, strict=True) if keep for base in _bases(piece)
    }
    for index, (_, piece) in enumerate(pieces):
        if not reached[index] and set(_CLASS_DEFINED.findall(piece)) & based_on:
            reached[index] = wanted[index] = True
    exported = {
        name
        for (_, piece), keep in zip(pieces, reached, strict=True)
        if keep
        for name in _DEFINED.findall(piece)
    }
    if exported:
        # A module-level name bound to what names a reached definition (a registry,
        # ``CONNECTORS = {"paged": PagedGPUConnector}``) stands for it too.
        mentions = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, exported))) + r")\b")
        for index, (_, piece) in enumerate(pieces):
            bound = _BOUND.match(piece)
            if bound and not piece.startswith(_DEFINITIONS) and mentions.search(piece, bound.end()):
                exported.add(bound.group(1))
                wanted[index] = True
    return [entry for entry, keep in zip(pieces, wanted, strict=True) if keep], tuple(sorted(exported))


_BOUND = re.compile(r"(\w+)\s*(?::[^=\n]*)?=(?!=)")


_CLASS_DEFINED = re.compile(r"^class\s+(\w+)", re.MULTILINE)
_CLASS_BASES = re.compile(r"^class\s+\w+\s*\(([^)]*)\)", re.MULTILINE)


def _bases(piece: str) -> set[str]:
    """The names a top-level class piece derives from (``class A(pkg.Base, metaclass=M)``: Base)."""
    found: set[str] = set()
    for listed in _CLASS_BASES.findall(piece):
        for part in listed.split(","):
            if "=" not in part and part.strip():
                found.add(part.strip().rsplit(".", 1)[-1])
    return found


def _defines(piece: str, names: frozenset[str]) -> bool:
    """Whether a top-level piece defines one of the names, as itself or as a method."""
    if not piece.startswith(_DEFINITIONS):
        return False
    if set(_DEFINED.findall(piece)) & names:
        return True
    return any(name in names for name in _METHOD_DEFINED.findall(piece))


_METHOD_DEFINED = re.compile(r"^[ \t]+(?:async[ \t]+)?def[ \t]+(\w+)", re.MULTILINE)


def _with_callees(pieces: list[tuple[int, str]], reached: list[bool]) -> list[bool]:
    """The reached pieces and the top-level definitions they call, to a fixed point."""
    reached = list(reached)
    defined = [set(_DEFINED.findall(piece)) for _, piece in pieces]
    pending = [piece for (_, piece), keep in zip(pieces, reached, strict=True) if keep]
    while pending:
        called = {name for piece in pending for name in re.findall(r"\b(\w+)\s*\(", piece)}
        pending = []
        for index, (_, piece) in enumerate(pieces):
            if not reached[index] and piece.startswith(_DEFINITIONS) and defined[index] & called:
                reached[index] = True
                pending.append(piece)
    return reached


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
