"""Per-file summaries cached by content, so a rerun parses only what changed.

Under ``.kvguard_cache/<version>/`` in the project root, or the working directory outside a
project (the directory ignores itself in git, like ``.ruff_cache``). Keys hash the display
path, the file's bytes, the analysis settings and the code of the analysis, so any change to
one of them is a miss.

The project is the tree being checked, often a pull request nobody has reviewed yet, so
nothing in the cache directory is trusted for what it says: every file is plain data
(kvguard.lint.serial, which builds only the types the reader expects) and carries a MAC made
with a key kept outside the project, in the user's cache directory. A file whose MAC does
not verify (written elsewhere, edited, truncated, committed) is ignored and rebuilt. A
cache directory that git tracks, or one that is a symbolic link or someone else's, is not
used at all (docs/security.md).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
import stat
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from kvguard import __version__
from kvguard.lint import serial
from kvguard.lint.facts import FileSummary
from kvguard.lint.gitcmd import git
from kvguard.lint.ir import ModuleCode
from kvguard.lint.results import Analysis

T = TypeVar("T")

CACHE_DIRECTORY = ".kvguard_cache"
# Entries beyond this are dropped oldest first; a large monorepo stays well under it.
MAX_ENTRIES = 200_000
# Larger cache files are not read (a lowered module is far smaller): reading stays bounded
# whatever the directory holds.
_MAX_FILE_BYTES = 64 * 1024 * 1024
_MAGIC = b"kvguard-cache-1 "
_KEY_BYTES = 32
_ANALYSIS = "analysis/latest.json"


class CacheUnavailable(Exception):
    """The run goes on without a cache; the message says why, for a one-line warning."""


@functools.cache
def code_fingerprint() -> str:
    """A hash of every module of the analysis (the package kvguard.lint): a change to any of
    them invalidates every entry, released or not."""
    digest = hashlib.blake2b(digest_size=12)
    package = Path(__file__).parent
    for module in sorted(package.rglob("*.py")):
        digest.update(module.relative_to(package).as_posix().encode() + b"\0")
        digest.update(module.read_bytes())
    return digest.hexdigest()


def key_file() -> Path:
    """Where this user's cache key lives: the user's cache directory, never a project."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kvguard" / "cache-key"


def machine_key() -> bytes:
    """This user's cache key, made on first use with owner-only permissions. A key file that
    others can read or write, or that is not a regular file of this user's, is refused."""
    path = key_file()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(handle, "wb") as stream:
                stream.write(secrets.token_bytes(_KEY_BYTES))
        handle = os.open(path, os.O_RDONLY | _NOFOLLOW)
        with os.fdopen(handle, "rb") as stream:
            info = os.fstat(stream.fileno())
            problem = _ownership_problem(info)
            if problem or info.st_mode & 0o077:
                raise CacheUnavailable(f"the cache key {path} {problem or 'is readable by others'}")
            key = stream.read(_KEY_BYTES + 1)
    except OSError as error:
        raise CacheUnavailable(f"cannot use the cache key {path}: {error.strerror or error}") from None
    if len(key) != _KEY_BYTES:
        raise CacheUnavailable(f"the cache key {path} is damaged (delete it to make a new one)")
    return key


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _ownership_problem(info: os.stat_result) -> str:
    if not stat.S_ISREG(info.st_mode) and not stat.S_ISDIR(info.st_mode):
        return "is not a regular file or directory"
    getuid = getattr(os, "getuid", None)
    if getuid is not None and info.st_uid != getuid():
        return "belongs to another user"
    return ""


def check_directory(root: Path) -> None:
    """Raise CacheUnavailable if the cache directory under ``root`` must not be used: git
    tracks it (it came with the checked tree), or it or a directory in it is a symbolic link
    or belongs to someone else (writes would land outside it)."""
    top = root / CACHE_DIRECTORY
    version = top / __version__
    for directory in (top, version, version / "code", version / "analysis"):
        try:
            info = os.lstat(directory)
        except FileNotFoundError:
            break
        except OSError as error:
            raise CacheUnavailable(f"cannot use {directory}: {error.strerror}") from None
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            raise CacheUnavailable(f"{directory} is not a directory (a symbolic link?): the cache is off")
        problem = _ownership_problem(info)
        if problem:
            raise CacheUnavailable(f"{directory} {problem}: the cache is off")
    if not top.exists():
        return
    try:
        tracked = git(root, "ls-files", "-z", "--", CACHE_DIRECTORY, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return  # not a git work tree
    if tracked:
        raise CacheUnavailable(
            f"{top} is tracked by git, so it came with the checked tree: it is ignored "
            f"(`git rm -r --cached {CACHE_DIRECTORY}` removes it from the repository)"
        )


def _salt(settings_fingerprint: str) -> bytes:
    return f"{__version__}\0{code_fingerprint()}\0{settings_fingerprint}\0".encode()


def index_name(settings_fingerprint: str) -> str:
    """The summary index of this analysis code and these settings: one each, since entries
    made under others can never be hit and would only make every warm run read more."""
    return f"summaries-{hashlib.blake2b(_salt(settings_fingerprint), digest_size=8).hexdigest()}.json"


class SummaryCache:
    """Summaries without their code in one index file (read on every run); each file's code
    and the analysis result in files of their own, read only when the analysis needs them."""

    def __init__(self, root: Path, settings_fingerprint: str, key: bytes) -> None:
        self._directory = root / CACHE_DIRECTORY / __version__
        self._mac_key = key
        self._salt = _salt(settings_fingerprint)
        self.index_name = index_name(settings_fingerprint)
        self._entries: dict[str, FileSummary] = self._read(self.index_name, dict[str, FileSummary]) or {}
        self._new_code: dict[str, ModuleCode] = {}
        self._dirty = False

    @classmethod
    def open(cls, root: Path, settings_fingerprint: str) -> SummaryCache:
        """The cache of the project at ``root``, or CacheUnavailable saying why there is none."""
        check_directory(root)
        return cls(root, settings_fingerprint, machine_key())

    def key(self, path: str, data: bytes) -> str:
        digest = hashlib.blake2b(self._salt, digest_size=20)
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def get(self, key: str) -> FileSummary | None:
        summary = self._entries.get(key)
        return replace(summary) if summary is not None and summary.cache_key == key else None

    def put(self, key: str, summary: FileSummary) -> None:
        if summary.code is not None:
            self._new_code[key] = summary.code
        self._entries[key] = replace(summary, code=None, cache_key=key)
        self._dirty = True

    def code(self, key: str) -> ModuleCode | None:
        if key in self._new_code:
            return self._new_code[key]
        return self._read(f"code/{key}.json", ModuleCode)

    def analysis(self) -> Analysis | None:
        """The latest analysis result, which says what it depends on."""
        return self._read(_ANALYSIS, Analysis)

    def put_analysis(self, result: Analysis) -> None:
        self._write(_ANALYSIS, result)

    def save(self) -> None:
        for key, code in self._new_code.items():
            self._write(f"code/{key}.json", code)
        self._new_code = {}
        if not self._dirty:
            return
        entries = self._entries
        if len(entries) > MAX_ENTRIES:
            entries = dict(list(entries.items())[-MAX_ENTRIES:])
        self._write(self.index_name, entries)

    def _mac(self, name: str, body: bytes) -> bytes:
        # The name is signed too: an entry cannot be moved to stand for another key.
        return hmac.new(self._mac_key, name.encode() + b"\0" + body, hashlib.sha256).hexdigest().encode()

    def _write(self, name: str, value: object) -> None:
        path = self._directory / name
        body = serial.dumps(value)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._ignore_in_git()
            # Write then rename: a concurrent run reads either the old or the new file.
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(handle, "wb") as stream:
                stream.write(_MAGIC + self._mac(name, body) + b"\n" + body)
            os.replace(temporary, path)
        except OSError:
            pass  # a read-only checkout still lints; it just does not cache

    def _ignore_in_git(self) -> None:
        ignore = self._directory.parent / ".gitignore"
        try:
            handle = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
        except FileExistsError:
            return
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write("# Created by kvguard.\n*\n")

    def _read(self, name: str, expected: type[T]) -> T | None:
        """The file's value if this user's key signed it and it has the expected shape."""
        try:
            handle = os.open(self._directory / name, os.O_RDONLY | _NOFOLLOW)
        except OSError:
            return None
        with os.fdopen(handle, "rb") as stream:
            try:
                info = os.fstat(stream.fileno())
                if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_FILE_BYTES:
                    return None
                header = stream.readline(len(_MAGIC) + 80)
                body = stream.read(_MAX_FILE_BYTES)
            except OSError:
                return None
        mac = header[len(_MAGIC) :].rstrip(b"\n")
        if not header.startswith(_MAGIC) or not hmac.compare_digest(mac, self._mac(name, body)):
            return None
        try:
            return serial.loads(body, expected)
        except serial.DecodeError:
            return None
