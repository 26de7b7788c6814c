"""Which files a run checks: walk the paths, honour excludes and .gitignore, follow
symlinks once."""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import os
import re
import subprocess
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from kvguard.lint.config import Settings
from kvguard.lint.gitcmd import git

PYTHON_SUFFIXES = (".py", ".pyi")


class PathError(Exception):
    """A path given on the command line cannot be used (exit status 2)."""


@dataclass(frozen=True)
class Candidate:
    """A file to check, a path that only yields a diagnostic (``problem`` set), or one the run
    skips with a warning (``skipped`` set: nothing there to read, not a fault of the code)."""

    path: Path
    problem: str = ""
    skipped: str = ""


_LINK_LOOP = "is a symbolic link loop (it leads back to itself): skipped"


def _is_link_loop(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError as error:
        return error.errno == errno.ELOOP
    return False


def _resolved(path: Path) -> Path | None:
    """The path with every link followed, or None where that cannot be done (a link loop)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a loop, before Python 3.13
        return None


def _relative_parts(path: Path, root: Path) -> tuple[str, ...]:
    try:
        return PurePosixPath(path.absolute().relative_to(root).as_posix()).parts
    except ValueError:
        return PurePosixPath(path.as_posix()).parts


def is_excluded(path: Path, root: Path, patterns: Iterable[str]) -> bool:
    """Ruff-style: a pattern without '/' matches any component's name; one with '/' matches
    the path relative to the project root or one of its parent directories."""
    excludes = _Excludes(patterns)
    parts = _relative_parts(path, root)
    return any(excludes.entry("/".join(parts[: i + 1]), part) for i, part in enumerate(parts))


class _Excludes:
    """Exclude patterns compiled once, for checking walked entries one at a time (a walked
    entry's ancestors were checked before it)."""

    def __init__(self, patterns: Iterable[str]) -> None:
        names, paths = [], []
        for pattern in patterns:
            pattern = pattern.rstrip("/")
            if "/" in pattern:
                paths.append(fnmatch.translate(pattern[2:] if pattern.startswith("./") else pattern))
            else:
                names.append(fnmatch.translate(pattern))
        self._names = re.compile("|".join(names)) if names else None
        self._paths = re.compile("|".join(paths)) if paths else None

    def entry(self, relative: str, name: str) -> bool:
        return bool(
            (self._names is not None and self._names.match(name))
            or (self._paths is not None and self._paths.match(relative))
        )


def _git_ignored(root: Path) -> tuple[Path, set[str]] | None:
    """The git work tree containing ``root`` and its ignored paths (directories end in '/')."""
    try:
        top = os.fsdecode(git(root, "rev-parse", "--show-toplevel", timeout=30).stdout).strip()
        listed = git(
            top, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", timeout=60
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(top).resolve(), {p.decode("utf-8", "surrogateescape") for p in listed.split(b"\0") if p}


class _GitIgnore:
    """Paths git ignores in the work tree of each walked top directory (one git call each)."""

    def __init__(self) -> None:
        self._trees: dict[Path, tuple[Path, set[str]] | None] = {}

    def tree_for(self, top: Path) -> tuple[Path, set[str]] | None:
        resolved = top.resolve()
        for tree in self._trees.values():
            if tree is not None and resolved.is_relative_to(tree[0]):
                return tree
        if resolved not in self._trees:
            self._trees[resolved] = _git_ignored(resolved)
        return self._trees[resolved]

    @staticmethod
    def ignored_in(tree: tuple[Path, set[str]] | None, directory: Path) -> Callable[[str, bool], bool]:
        """Whether git ignores an entry of ``directory``, by name and kind."""
        if tree is None or not tree[1]:
            return lambda name, is_dir: False
        top, ignored = tree
        try:
            relative = directory.absolute().relative_to(top).as_posix()
        except ValueError:
            resolved = _resolved(directory)
            if resolved is None or not resolved.is_relative_to(top):
                return lambda name, is_dir: False
            relative = resolved.relative_to(top).as_posix()
        prefix = "" if relative == "." else relative + "/"
        return lambda name, is_dir: f"{prefix}{name}{'/' if is_dir else ''}" in ignored


_ESCAPES = "is a symbolic link to outside the project: not read (check its target where it lives)"


def discover(paths: list[Path], settings: Settings, project: Path) -> list[Candidate]:
    """Files to check, in a stable order; directories named like Python files become
    diagnostics (their contents are still walked). A file or directory in ``project`` that
    a symbolic link takes out of it becomes a diagnostic and is not read: the checked tree
    may come from someone else, and its links must not make kvguard read (and quote in a
    report) files elsewhere on the machine."""
    excludes = settings.all_excludes
    inside = _Inside(project)
    gitignore = _GitIgnore()
    seen_files: set[object] = set()
    seen_dirs: set[tuple[int, int]] = set()
    found: list[Candidate] = []

    def add(candidate: Candidate) -> None:
        # One file reached twice (through a link, or named twice) is checked once.
        identity: object = os.path.abspath(candidate.path)
        if not candidate.problem:
            with contextlib.suppress(OSError):
                info = os.stat(candidate.path)
                identity = (info.st_dev, info.st_ino)
        if identity not in seen_files:
            seen_files.add(identity)
            found.append(candidate)

    for path in paths:
        if not os.path.lexists(path):
            raise PathError(f"{path}: no such file or directory")
        if path.is_dir():
            if settings.force_exclude and is_excluded(path, settings.root, excludes):
                continue
            if inside.escapes(path):
                add(Candidate(path, _ESCAPES))
                continue
            if path.name.endswith(PYTHON_SUFFIXES):
                add(Candidate(path, "is a directory, not a Python file (its contents are checked)"))
            for candidate in _walk(path, settings, gitignore, seen_dirs, inside):
                add(candidate)
        else:
            if settings.force_exclude and is_excluded(path, settings.root, excludes):
                continue
            if _is_link_loop(path):
                add(Candidate(path, skipped=_LINK_LOOP))
            else:
                add(Candidate(path, _ESCAPES if inside.escapes(path) else ""))
    return found


class _Inside:
    """Whether a path under the project leads out of it through a symbolic link."""

    def __init__(self, project: Path) -> None:
        self._lexical = project.absolute()
        self._real = project.resolve()

    def escapes(self, path: Path) -> bool:
        absolute = path.absolute()
        if not absolute.is_relative_to(self._lexical) and not absolute.is_relative_to(self._real):
            return False  # named outside the project: the user asked for it
        resolved = _resolved(path)
        return resolved is None or not resolved.is_relative_to(self._real)


def _walk(
    top: Path,
    settings: Settings,
    gitignore: _GitIgnore,
    seen_dirs: set[tuple[int, int]],
    inside: _Inside,
) -> Iterator[Candidate]:
    excludes = _Excludes(settings.all_excludes)
    tree = gitignore.tree_for(top)
    for directory, dirnames, filenames in os.walk(top, followlinks=True):
        here = Path(directory)
        prefix = "/".join(_relative_parts(here, settings.root))
        try:
            stat = here.stat()
        except OSError:
            continue
        if (stat.st_dev, stat.st_ino) in seen_dirs:
            dirnames[:] = []  # a symlink loop or a second link to a walked tree
            continue
        seen_dirs.add((stat.st_dev, stat.st_ino))
        ignored = gitignore.ignored_in(tree, here)
        kept = []
        for name in sorted(dirnames):
            child = here / name
            if excludes.entry(f"{prefix}/{name}".lstrip("/"), name) or ignored(name, True):
                continue
            if os.path.islink(child) and inside.escapes(child):
                yield Candidate(child, _ESCAPES)
                continue
            kept.append(name)
            if name.endswith(PYTHON_SUFFIXES):
                yield Candidate(child, "is a directory, not a Python file (its contents are checked)")
        dirnames[:] = kept
        for name in sorted(filenames):
            if not name.endswith(PYTHON_SUFFIXES):
                continue
            if excludes.entry(f"{prefix}/{name}".lstrip("/"), name) or ignored(name, False):
                continue
            child = here / name
            if not os.path.islink(child):
                yield Candidate(child)
            elif _is_link_loop(child):
                yield Candidate(child, skipped=_LINK_LOOP)
            else:
                yield Candidate(child, _ESCAPES if inside.escapes(child) else "")


def staged_python_files(directory: Path) -> tuple[Path, list[Path]]:
    """The git work tree holding ``directory`` and the Python files a commit there would
    change: those staged in the index (added, copied, modified, renamed; not deleted), or,
    when pre-commit runs with ``--from-ref``/``--to-ref``, those changed between the two."""
    try:
        top = Path(os.fsdecode(git(directory, "rev-parse", "--show-toplevel", timeout=30).stdout).strip())
        since, until = os.environ.get("PRE_COMMIT_FROM_REF"), os.environ.get("PRE_COMMIT_TO_REF")
        changes = ("diff", "--name-only", "-z", "--no-ext-diff", "--diff-filter=ACMR")
        if since and until:
            listed = git(top, *changes, f"{since}...{until}", timeout=60).stdout
        else:
            listed = git(top, *changes, "--cached", timeout=60).stdout
    except OSError as error:
        raise PathError(f"--staged needs git: {error.strerror or error}") from None
    except subprocess.SubprocessError:
        raise PathError(f"--staged: {directory} is not in a git work tree") from None
    names = (os.fsdecode(name) for name in listed.split(b"\0") if name)
    # Read as they are on disk: pre-commit has set unstaged changes aside by then.
    files = (top / name for name in names if name.endswith(PYTHON_SUFFIXES))
    return top, [path for path in files if os.path.lexists(path)]
