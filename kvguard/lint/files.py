"""Which files a run checks: walk the paths, honour excludes and .gitignore, follow
symlinks once."""

from __future__ import annotations

import fnmatch
import os
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from kvguard.lint.config import Settings

PYTHON_SUFFIXES = (".py", ".pyi")


class PathError(Exception):
    """A path given on the command line cannot be used (exit status 2)."""


@dataclass(frozen=True)
class Candidate:
    """A file to check, or a path that only yields a diagnostic (``problem`` set)."""

    path: Path
    problem: str = ""


def _relative_parts(path: Path, root: Path) -> tuple[str, ...]:
    try:
        return PurePosixPath(path.absolute().relative_to(root).as_posix()).parts
    except ValueError:
        return PurePosixPath(path.as_posix()).parts


def is_excluded(path: Path, root: Path, patterns: Iterable[str], given: Path | None = None) -> bool:
    """Ruff-style: a pattern without '/' matches any component's name; one with '/' matches
    the path relative to the project root or one of its parent directories. Components of
    ``given`` (a directory named on the command line) and above never match: asking for a
    directory checks it."""
    parts = _relative_parts(path, root)
    skip = len(_relative_parts(given, root)) if given is not None else 0
    prefixes = [PurePosixPath(*parts[: i + 1]).as_posix() for i in range(skip, len(parts))]
    parts = parts[skip:]
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if "/" in pattern:
            pattern = pattern.lstrip("./") if pattern.startswith("./") else pattern
            if any(fnmatch.fnmatchcase(prefix, pattern) for prefix in prefixes):
                return True
        elif any(fnmatch.fnmatchcase(part, pattern) for part in parts):
            return True
    return False


def _git_ignored(root: Path) -> tuple[Path, set[str]] | None:
    """The git work tree containing ``root`` and its ignored paths (directories end in '/')."""
    try:
        top = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout.strip()
        listed = subprocess.run(
            [
                "git",
                "-C",
                top,
                "ls-files",
                "-z",
                "--others",
                "--ignored",
                "--exclude-standard",
                "--directory",
            ],
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(top).resolve(), {p.decode("utf-8", "surrogateescape") for p in listed.split(b"\0") if p}


class _GitIgnore:
    def __init__(self) -> None:
        self._trees: dict[Path, tuple[Path, set[str]] | None] = {}

    def ignored(self, path: Path, is_dir: bool) -> bool:
        directory = path.parent.resolve()
        tree = self._tree(directory)
        if tree is None:
            return False
        top, ignored = tree
        try:
            relative = path.resolve().relative_to(top).as_posix()
        except ValueError:
            return False
        return (relative + "/" if is_dir else relative) in ignored

    def _tree(self, directory: Path) -> tuple[Path, set[str]] | None:
        for known, tree in self._trees.items():
            if tree is not None and directory.is_relative_to(tree[0]):
                return tree
            if tree is None and directory == known:
                return None
        tree = _git_ignored(directory)
        self._trees[directory] = tree
        return tree


def discover(paths: list[Path], settings: Settings) -> list[Candidate]:
    """Files to check, in a stable order; directories named like Python files become
    diagnostics (their contents are still walked)."""
    excludes = settings.all_excludes
    gitignore = _GitIgnore()
    seen_files: set[Path] = set()
    seen_dirs: set[tuple[int, int]] = set()
    found: list[Candidate] = []

    def add(candidate: Candidate) -> None:
        real = candidate.path.resolve() if not candidate.problem else candidate.path.absolute()
        if real not in seen_files:
            seen_files.add(real)
            found.append(candidate)

    for path in paths:
        if not os.path.lexists(path):
            raise PathError(f"{path}: no such file or directory")
        if path.is_dir():
            if settings.force_exclude and is_excluded(path, settings.root, excludes):
                continue
            if path.name.endswith(PYTHON_SUFFIXES):
                add(Candidate(path, "is a directory, not a Python file (its contents are checked)"))
            for candidate in _walk(path, settings, gitignore, seen_dirs):
                add(candidate)
        else:
            if settings.force_exclude and is_excluded(path, settings.root, excludes):
                continue
            add(Candidate(path))
    return found


def _walk(
    top: Path, settings: Settings, gitignore: _GitIgnore, seen_dirs: set[tuple[int, int]]
) -> Iterator[Candidate]:
    excludes = settings.all_excludes
    for directory, dirnames, filenames in os.walk(top, followlinks=True):
        here = Path(directory)
        try:
            stat = here.stat()
        except OSError:
            continue
        if (stat.st_dev, stat.st_ino) in seen_dirs:
            dirnames[:] = []  # a symlink loop or a second link to a walked tree
            continue
        seen_dirs.add((stat.st_dev, stat.st_ino))
        kept = []
        for name in sorted(dirnames):
            child = here / name
            if is_excluded(child, settings.root, excludes, top) or gitignore.ignored(child, is_dir=True):
                continue
            kept.append(name)
            if name.endswith(PYTHON_SUFFIXES):
                yield Candidate(child, "is a directory, not a Python file (its contents are checked)")
        dirnames[:] = kept
        for name in sorted(filenames):
            if not name.endswith(PYTHON_SUFFIXES):
                continue
            child = here / name
            if is_excluded(child, settings.root, excludes, top) or gitignore.ignored(child, is_dir=False):
                continue
            yield Candidate(child)
