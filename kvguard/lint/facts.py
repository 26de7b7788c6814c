"""The per-file summary the engine keeps of a file after reading it once.

Summaries are plain, picklable data (the lowered code, suppressions, diagnostics), cached
by content hash; the analysis and the rules read them, never source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from kvguard.lint.findings import Span
from kvguard.lint.ir import ModuleCode


class Memory(str, Enum):
    """Where a tensor or buffer lives, as far as the code shows."""

    DEVICE = "device"
    HOST = "host"
    UNKNOWN = "unknown"


# CUmemcpySrcAccessOrder / cudaMemcpySrcAccessOrder values.
ORDER_STREAM = 1
ORDER_DURING_API_CALL = 2
ORDER_ANY = 3
ORDER_NAMES = {0: "INVALID", 1: "STREAM", 2: "DURING_API_CALL", 3: "ANY"}


@dataclass(frozen=True)
class SourceOrder:
    """A source-access-order value that reaches a copy, and where it was spelled."""

    value: int
    spelling: str
    span: Span
    # How it arrived: "argument", "attribute", "default of parameter 'x'", ...
    origin: str
    path: str
    # For a parameter default: the call that left the argument out (path, call span, parameter).
    defaulted_at: tuple[str, Span, str] | None = None


@dataclass(frozen=True)
class Suppression:
    line: int
    column: int
    # Empty: every code. Codes are upper-case as written.
    codes: tuple[str, ...]
    file_level: bool = False


@dataclass(frozen=True)
class MalformedSuppression:
    """A comment that starts like a suppression but is none of the documented forms: it
    suppresses nothing and is reported (KVG101)."""

    line: int
    column: int
    written: str  # the comment from its '#', as written
    meant: str  # the documented form it most likely meant, or "" where that cannot be told


@dataclass(frozen=True)
class Diagnostic:
    """Why a file could not be read or parsed (reported as KVG000)."""

    message: str
    line: int = 1
    column: int = 1


@dataclass
class FileSummary:
    path: str
    code: ModuleCode | None = None
    suppressions: list[Suppression] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # Whether the file passed the token gate and was parsed.
    parsed: bool = False
    # Where its code is cached, when ``code`` was left out of the summary to load lazily.
    cache_key: str = ""
    # A parsed file: a digest of its lowered code. The analysis reads the file only through
    # that code, so an edit that leaves it as it was (a comment, a line in a function the
    # analysis does not lower) leaves the analysis result as it was.
    code_digest: str = ""
    # A parsed file: a digest of what the analysis's project-wide indexes read from its code
    # (kvguard.lint.dependencies): a result computed before an edit that leaves it as it was
    # may still hold.
    shape: str = ""
    # A parsed file: the top-level functions and classes it gives the analysis. A file not
    # parsed: the names it imports (``from m import a, b``); one that imports an exported
    # name is parsed after all, for the calls into it.
    exported: tuple[str, ...] = ()
    imported: tuple[str, ...] = ()
    # A file not parsed: the names its text defines (``def``/``class`` at any depth), for
    # parsed files that import from it (it is parsed for the ones they use).
    defined: tuple[str, ...] = ()
    # A file not parsed: each class it defines with a base, by name, with its bases' last names
    # (``class HiCacheFile(base.HiCacheStorage)``: ``HiCacheStorage``).
    subclasses: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # A parsed file: the record types (dataclasses, named tuples, structures) it defines at
    # its top level; the modules that import one handle what a parsed file builds of it.
    records: tuple[str, ...] = ()
    # A parsed file: its top-level classes with a method only subclasses define (an abstract
    # storage backend); the project's subclasses of one are parsed for their definitions.
    abstract: tuple[str, ...] = ()
    # A parsed file: each module it imports from (as written, ``.helpers`` or ``pkg.helpers``)
    # with the names it may use from there (imported names it calls or reads attributes of,
    # and every method name it calls). An unparsed module that defines one is parsed for it.
    uses: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Comments that start like a suppression but are none of the forms (KVG101).
    malformed_suppressions: list[MalformedSuppression] = field(default_factory=list)
