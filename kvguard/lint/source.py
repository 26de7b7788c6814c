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
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kvguard.lint import serial
from kvguard.lint.api import (
    GATE_NAMES,
    PINNED_ALLOCATORS,
    RAW_ALLOCATORS,
    SEED_NAMES,
    WEAK_NAMES,
    passes_gate,
)
from kvguard.lint.dependencies import module_shape
from kvguard.lint.facts import Diagnostic, FileSummary, Memory
from kvguard.lint.reading import _declares_only
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


def summarize(
    path: str, data: bytes, callees: frozenset[str] = frozenset(), definitions: frozenset[str] = frozenset()
) -> FileSummary:
    """Read one file into its summary; every failure becomes a diagnostic, never an error.
    ``callees``: names other files export that this one calls; ``definitions``: names other
    files use from this one (it is parsed for those, even when it passes no gate of its own)."""
    summary = FileSummary(path=path)
    text, problem = decode(data)
    if text is None:
        assert problem is not None
        summary.diagnostics.append(problem)
        return summary
    if _SUPPRESSION_HINT.search(data):
        summary.suppressions, summary.malformed_suppressions = read_suppressions(text)
    gated = passes_gate(data)
    if not gated and not callees and not definitions:
        return _unparsed(summary, text)
    selection = _select(text, callees, definitions)
    # A package's ``__init__`` that imports what others export re-exports it: ``from package
    # import Name`` reads it there.
    gated = gated and selection.gated
    if not gated and not selection.reaches and not (callees and path.endswith("__init__.py")):
        return _unparsed(summary, text)  # nothing here calls or defines what others need
    summary.parsed = True
    _parse_into(summary, text, selection)
    # A file read for some definitions uses what those definitions use (the helper they call
    # from a third module), not what the rest of it imports.
    summary.uses = _uses("\n".join(piece for _, piece in selection.wanted) if definitions else text)
    if summary.code is not None:
        summary.code_digest = hashlib.blake2b(serial.dumps(summary.code), digest_size=16).hexdigest()
        summary.shape = module_shape(summary.code)
    return summary


def _orders(piece: str, own: frozenset[str], pinned_host: bool) -> bool:
    """Whether a piece names an ordering construct other than the names in ``own``; or an
    asynchronous copy, where the file allocates pinned host memory it may copy into (what the
    caller reads next, on the host, may be the copy's destination)."""
    if own:
        piece = re.sub(r"\b(?:" + "|".join(sorted(map(re.escape, own))) + r")\b", "_", piece)
    if not pinned_host:
        piece = piece.replace("non_blocking", "")
    return passes_gate(piece.encode("utf-8", "surrogatepass"))


# Pinned host memory, allocated or pinned here (``pin_memory=True``, ``cudaHostAlloc``).
_PINNED_HOST_NAMES = PINNED_ALLOCATORS | {
    name for name, memory in RAW_ALLOCATORS.items() if memory is Memory.HOST
}
_PINNED_HOST = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, _PINNED_HOST_NAMES))) + r")\b")


def _unparsed(summary: FileSummary, text: str) -> FileSummary:
    """A file the analysis does not read: what it imports and defines, for the files it does."""
    summary.imported = _imported_names(text)
    summary.defined = tuple(sorted(set(_DEFINITION.findall(text)) | set(_CONSTANT.findall(text))))
    summary.subclasses = tuple(
        sorted(
            (name, tuple(sorted({base.strip().rpartition(".")[2] for base in bases.split(",")} - {""})))
            for name, bases in _CLASS_STATEMENT.findall(text)
        )
    )
    return summary


# A class statement, with its bases as written.
_CLASS_STATEMENT = re.compile(r"^[ \t]*class[ \t]+(\w+)[ \t]*\(([^)]*)\)", re.MULTILINE)
_DEFINITION = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)
# A module-level name bound by assignment (``STREAM_NAMES = (...)``, ``ORDER: int = 1``).
_CONSTANT = re.compile(r"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)", re.MULTILINE)
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
# A name used as a value: called, an attribute read, passed on or in an annotation (``pool:
# Pool``), not where it is bound or imported.
_NAME_USED = re.compile(r"(?<![\w.])(\w+)\b(?!\s*=[^=])")
_DOTTED_CALL = re.compile(r"\b(\w+(?:\.\w+)*)\.(\w+)\s*\(")


def _uses(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """What this file may use from each module it imports: the imported names it mentions
    after importing them (a class only in an annotation still has its methods called here),
    the functions it calls through an imported module (``ops.swap_blocks(``), and, marked
    with a leading dot, every method it calls (``.flush_pending``: a helper class's method
    called on an object the analysis cannot place)."""
    methods = {f".{name}" for name in _METHOD_CALL.findall(text) if not name.startswith("__")}
    # One scan of the text, not one per import: where each name is last mentioned.
    last_use = {match.group(1): match.start() for match in _NAME_USED.finditer(text)}
    called_on: dict[str, set[str]] = {}
    for match in _DOTTED_CALL.finditer(text):
        parts = match.group(1).split(".")
        for start in range(len(parts)):  # ``self.ops.swap(`` calls ``swap`` on ``ops`` too
            called_on.setdefault(".".join(parts[start:]), set()).add(match.group(2))
    found: dict[str, set[str]] = {}
    for match in _IMPORT_FROM.finditer(text):
        module = match.group(1)
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
        found.setdefault(module, set()).update(called_on.get(alias, set()))
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


def _parse_into(summary: FileSummary, text: str, selection: _Selection) -> None:
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
        segments = _parse_segments(text, selection)
        summary.exported = selection.exported
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
        return
    summary.records = tuple(
        cls.name for cls in summary.code.classes if cls.fields and cls.qualname == cls.name
    )
    summary.abstract = tuple(
        sorted(
            {
                function.class_name
                for function in summary.code.functions
                if function.class_name and "." not in function.class_name and _declares_only(function)
            }
        )
    )


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


@dataclass(frozen=True)
class _Selection:
    """The top-level statements of a file the analysis needs (``wanted``, of ``total``); the
    names of the definitions among them that lead to what it needs (``exported``); whether
    any definition is among them for what made the file interesting (``reaches``)."""

    wanted: list[tuple[int, str]]
    total: int
    exported: tuple[str, ...]
    reaches: bool
    # Whether code here (not its docstrings) names what the gate knows.
    gated: bool = True


def _select(text: str, callees: frozenset[str], definitions: frozenset[str]) -> _Selection:
    """``callees``: names other files export that this one calls; ``definitions``: names other
    files use from this one (only those definitions are read, with what they call here)."""
    pieces = _top_level_pieces(text)
    if definitions:
        # What other files use from here, not what else here uses it: no callers.
        defining = [_defines(piece, definitions) for _, piece in pieces]
        reached = _with_callees(pieces, defining)
        wanted = [
            entry
            for entry, keep in zip(pieces, reached, strict=True)
            if keep or (not entry[1].startswith(_DEFINITIONS) and _wanted(entry[1]))
        ]
        return _Selection(wanted, len(pieces), (), any(defining))
    # A bare string (a docstring's prose) is no code that names anything.
    gated = [
        not _STRING_STATEMENT.match(piece) and passes_gate(piece.encode("utf-8", "surrogatepass"))
        for _, piece in pieces
    ]
    parsed_anyway = [keep or _wanted(piece) for keep, (_, piece) in zip(gated, pieces, strict=True)]
    wanted, exported = _with_callers(pieces, gated, parsed_anyway, callees)
    if not callees:
        # Other files' callers are read for the definitions here that lead to a stream, event,
        # thread, queue, raw copy or source order: a caller's stream and barriers order those.
        # Not for an asynchronous tensor copy alone (it runs on the caller's current stream,
        # which a caller that sets one names itself), nor for a name the file defines itself
        # (a request's own ``record_event`` method is not the stream API).
        own = frozenset(_DEFINITION.findall(text)) & GATE_NAMES
        host = _PINNED_HOST.search(text) is not None
        ordering = [not _STRING_STATEMENT.match(piece) and _orders(piece, own, host) for _, piece in pieces]
        _, exported = _with_callers(pieces, ordering, list(ordering), callees)
    # And what those callers call here in turn (the backend class a reached engine makes).
    kept = {first for first, _ in wanted}
    wanted = [
        entry
        for entry, keep in zip(pieces, _with_callees(pieces, [f in kept for f, _ in pieces]), strict=True)
        if keep
    ]
    return _Selection(wanted, len(pieces), exported, bool(exported), any(gated))


# A statement that is only a string literal (a docstring), possibly prefixed (``r"""``).
_STRING_STATEMENT = re.compile(r"[rRbBuUfF]{0,2}(?:\"\"\"|'''|\"|')")


def _parse_segments(text: str, selection: _Selection) -> list[Segment]:
    """Parse only the top-level statements the analysis needs, or the whole file if unsure."""
    import libcst as cst

    from kvguard.lint.reader import Segment

    if len(selection.wanted) == selection.total:
        return [Segment(cst.parse_module(text))]
    # The wanted pieces as one module, parsed once, with where each piece starts in it and in
    # the file.
    joined: list[str] = []
    starts: list[tuple[int, int]] = []
    line = 1
    for first, piece in selection.wanted:
        if not piece.endswith(("\n", "\r")):
            piece += "\n"
        starts.append((line, first))
        joined.append(piece)
        line += len(piece.splitlines())
    try:
        return [Segment(cst.parse_module("".join(joined)), tuple(starts))]
    except cst.ParserSyntaxError:
        return [Segment(cst.parse_module(text))]


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
    # What another file exports is also used without a call: handed on (a callback, a thread's
    # target), as the type of a parameter whose methods are then called, or as a base class
    # whose methods the subclass's own methods call in their order (``self.load(i)`` then
    # ``self.sync()``).
    imported = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, callees))) + r")\b") if callees else None
    pending = [piece for (_, piece), keep in zip(pieces, gated, strict=True) if keep]
    own: set[str] = set()
    first = True
    while pending or first:
        fresh = {name for piece in pending for name in _DEFINED.findall(piece)} - names
        own |= fresh
        if first:
            fresh |= callees
            first = False
        names |= fresh
        pending = []
        if not fresh:
            break
        calls = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, fresh))) + r")\s*\(")
        # A subclass of a reached class of this file inherits what leads to the copy.
        subclassed = fresh & own
        bases = (
            re.compile(r"^class\s+\w+\s*\([^)]*\b(?:" + "|".join(sorted(map(re.escape, subclassed))) + r")\b")
            if subclassed
            else None
        )
        for index, (_, piece) in enumerate(pieces):
            if (
                not reached[index]
                and piece.startswith(_DEFINITIONS)
                and (
                    calls.search(piece)
                    or (bases and bases.search(piece))
                    or (imported and imported.search(piece))
                )
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
    """Whether a top-level piece defines one of the names, as itself or (a name with a leading
    dot) as a method. A function always counts (a factory or a result unwrapper carries values
    along); a class only if it names something the analysis reads or is small (a payload
    record): a large class that does nothing the analysis follows (a configuration) is as
    good unread."""
    if not piece.startswith(_DEFINITIONS):
        # A module constant another file imports (``from .config import STREAM_NAMES``).
        bound = _CONSTANT.match(piece)
        return bound is not None and bound.group(1) in names
    if not (
        set(_DEFINED.findall(piece)) & names
        or any(f".{name}" in names for name in _METHOD_DEFINED.findall(piece))
    ):
        return False
    return (
        not _CLASS_DEFINED.search(piece)
        or piece.count("\n") <= _SMALL_CLASS_LINES
        or bool(passes_gate(piece.encode("utf-8", "surrogatepass")) or _KNOWN_CALL.search(piece))
    )


# A class up to this long is read for its fields even when it names nothing the analysis
# reads (a request or payload record handed through a queue).
_SMALL_CLASS_LINES = 60


# A call the analysis reads (a copy, a placement, an allocation, a stream or event call) or a
# write it tracks (an in-place method such as ``index_copy_``, an ``out=`` argument).
_KNOWN_CALL = re.compile(
    r"\b(?:" + "|".join(sorted(map(re.escape, SEED_NAMES | WEAK_NAMES))) + r")\s*\("
    r"|\.[A-Za-z]\w*[A-Za-z0-9]_\s*\(|\bout\s*="
)


_METHOD_DEFINED = re.compile(r"^[ \t]+(?:async[ \t]+)?def[ \t]+(\w+)", re.MULTILINE)


# A name called (``f(``), or passed bare as an argument or keyword value (``submit(f, x)``).
_CALLED_OR_PASSED = re.compile(r"\b(\w+)\s*\(|(?<=[(,=])\s*(\w+)\s*(?=[,)])")


def _with_callees(pieces: list[tuple[int, str]], reached: list[bool]) -> list[bool]:
    """The reached pieces and the top-level definitions they call or hand on as an argument
    (``pool.submit(_write, path)``, ``Thread(target=run)``), to a fixed point."""
    reached = list(reached)
    defined = [set(_DEFINED.findall(piece)) for _, piece in pieces]
    pending = [piece for (_, piece), keep in zip(pieces, reached, strict=True) if keep]
    while pending:
        called = {
            name for piece in pending for pair in _CALLED_OR_PASSED.findall(piece) for name in pair if name
        }
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
    open_quote = ""  # the triple quote a string spanning lines is open with
    for number, line in enumerate(lines):
        inside = bool(open_quote)
        if ('"""' in line or "'''" in line) and (inside or not line.lstrip().startswith("#")):
            open_quote = _quote_after(line, open_quote)
        if inside or not line or line.startswith(_CONTINUATION_STARTS) or _CLAUSE.match(line):
            continue
        if not after_decorator:
            starts.append(number)
        after_decorator = line.startswith("@")
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = [*starts, len(lines)]
    return [(bounds[i] + 1, "".join(lines[bounds[i] : bounds[i + 1]])) for i in range(len(starts))]


def _quote_after(line: str, open_quote: str) -> str:
    """Which triple quote is still open after this line, given the one open before it (a
    docstring's lines at column 0 start no statement)."""
    position = 0
    while True:
        if open_quote:
            end = line.find(open_quote, position)
            if end < 0:
                return open_quote
            open_quote, position = "", end + 3
        else:
            found = [(index, quote) for quote in ('"""', "'''") if (index := line.find(quote, position)) >= 0]
            if not found:
                return ""
            position, open_quote = min(found)
            position += 3


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
