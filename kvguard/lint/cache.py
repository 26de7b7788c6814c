"""Per-file summaries cached by content, so a rerun parses only what changed.

Under ``.kvguard_cache/<version>/`` in the project root, or the working directory outside a
project (the directory ignores itself in git, like ``.ruff_cache``). Keys hash the display
path, the file's bytes, the analysis settings and the code that reads files, so any change to
one of them is a miss.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from kvguard import __version__
from kvguard.lint.facts import FileSummary
from kvguard.lint.interpreter import Analysis
from kvguard.lint.ir import ModuleCode

T = TypeVar("T")

CACHE_DIRECTORY = ".kvguard_cache"
# Entries beyond this are dropped oldest first; a large monorepo stays well under it.
MAX_ENTRIES = 200_000


def _code_fingerprint() -> str:
    """A hash of the code that makes summaries and analysis results: a change to it
    invalidates every entry, released or not."""
    digest = hashlib.blake2b(digest_size=12)
    package = Path(__file__).parent
    for name in (
        "source.py",
        "reader.py",
        "positions.py",
        "ir.py",
        "facts.py",
        "interpreter.py",
        "values.py",
    ):
        digest.update((package / name).read_bytes())
    return digest.hexdigest()


class SummaryCache:
    """Summaries without their code in one index file (read on every run); each file's code
    and the analysis result in files of their own, read only when the analysis needs them."""

    def __init__(self, root: Path, settings_fingerprint: str) -> None:
        self._directory = root / CACHE_DIRECTORY / __version__
        self._index = self._directory / "summaries.pickle"
        self._salt = f"{__version__}\0{_code_fingerprint()}\0{settings_fingerprint}\0".encode()
        self._entries: dict[str, FileSummary] = self._read(self._index, dict) or {}
        self._new_code: dict[str, ModuleCode] = {}
        self._dirty = False

    def key(self, path: str, data: bytes) -> str:
        digest = hashlib.blake2b(self._salt, digest_size=20)
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def get(self, key: str) -> FileSummary | None:
        summary = self._entries.get(key)
        return replace(summary) if summary is not None else None

    def put(self, key: str, summary: FileSummary) -> None:
        if summary.code is not None:
            self._new_code[key] = summary.code
        self._entries[key] = replace(summary, code=None, cache_key=key)
        self._dirty = True

    def code(self, key: str) -> ModuleCode | None:
        if key in self._new_code:
            return self._new_code[key]
        return self._read(self._directory / "code" / f"{key}.pickle", ModuleCode)

    def analysis(self, key: str) -> Analysis | None:
        return self._read(self._directory / "analysis" / f"{key}.pickle", Analysis)

    def put_analysis(self, key: str, result: Analysis) -> None:
        analysis = self._directory / "analysis"
        for stale in analysis.glob("*.pickle") if analysis.is_dir() else ():
            stale.unlink(missing_ok=True)  # one result is kept: the latest
        self._write(analysis / f"{key}.pickle", result)

    def save(self) -> None:
        for key, code in self._new_code.items():
            self._write(self._directory / "code" / f"{key}.pickle", code)
        self._new_code = {}
        if not self._dirty:
            return
        entries = self._entries
        if len(entries) > MAX_ENTRIES:
            entries = dict(list(entries.items())[-MAX_ENTRIES:])
        self._write(self._index, entries)

    def _write(self, path: Path, value: object) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self._directory.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Created by kvguard.\n*\n", encoding="utf-8")
            # Write then rename: a concurrent run reads either the old or the new file.
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(handle, "wb") as stream:
                pickle.dump(value, stream, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        except OSError:
            pass  # a read-only checkout still lints; it just does not cache

    @staticmethod
    def _read(path: Path, kind: type[T]) -> T | None:
        try:
            with path.open("rb") as stream:
                value = pickle.load(stream)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError):
            return None
        return value if isinstance(value, kind) else None
