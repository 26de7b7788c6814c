"""Per-file summaries cached by content, so a rerun parses only what changed.

One pickle file per kvguard version under ``.kvguard_cache/`` in the project root (the
directory ignores itself in git, like ``.ruff_cache``). Keys hash the display path, the
file's bytes and the analysis settings, so any change to one of them is a miss.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from kvguard import __version__
from kvguard.lint.facts import FileSummary

CACHE_DIRECTORY = ".kvguard_cache"
# Entries beyond this are dropped oldest first; a large monorepo stays well under it.
MAX_ENTRIES = 200_000


class SummaryCache:
    def __init__(self, root: Path, settings_fingerprint: str) -> None:
        self._directory = root / CACHE_DIRECTORY
        self._file = self._directory / f"summaries-{__version__}.pickle"
        self._salt = f"{__version__}\0{settings_fingerprint}\0".encode()
        self._entries: dict[str, FileSummary] = self._load()
        self._dirty = False

    def key(self, path: str, data: bytes) -> str:
        digest = hashlib.blake2b(self._salt, digest_size=20)
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def get(self, key: str) -> FileSummary | None:
        return self._entries.get(key)

    def put(self, key: str, summary: FileSummary) -> None:
        self._entries[key] = summary
        self._dirty = True

    def save(self) -> None:
        if not self._dirty:
            return
        entries = self._entries
        if len(entries) > MAX_ENTRIES:
            entries = dict(list(entries.items())[-MAX_ENTRIES:])
        try:
            self._directory.mkdir(exist_ok=True)
            ignore = self._directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Created by kvguard.\n*\n", encoding="utf-8")
            # Write then rename: a concurrent run reads either the old or the new file.
            handle, temporary = tempfile.mkstemp(dir=self._directory, prefix=".summaries-")
            with os.fdopen(handle, "wb") as stream:
                pickle.dump(entries, stream, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, self._file)
        except OSError:
            pass  # a read-only checkout still lints; it just does not cache

    def _load(self) -> dict[str, FileSummary]:
        try:
            with self._file.open("rb") as stream:
                entries = pickle.load(stream)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError):
            return {}
        return entries if isinstance(entries, dict) else {}
