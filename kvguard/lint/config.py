"""``[tool.kvguard]`` in pyproject.toml, merged with command-line options."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

# Directories nobody wants linted (the list ruff users know).
DEFAULT_EXCLUDE = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pytype",
    ".ruff_cache",
    ".kvguard_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pypackages__",
    "_build",
    "buck-out",
    "dist",
    "node_modules",
    "venv",
)


class ConfigError(Exception):
    """A configuration problem the user must fix; the message names the file and key."""


@dataclass(frozen=True)
class AnalysisSettings:
    """What users teach the analysis about code it cannot see through. Names are dotted
    (``pkg.module.function``, ``pkg.module.Class.method``) or a bare function name."""

    # Calls that order every side stream (or the streams passed to them) behind the producer.
    barrier_functions: tuple[str, ...] = ()
    # Calls that copy their first argument into their second on the current stream.
    copy_functions: tuple[str, ...] = ()
    # Spellings of streams that are the producer (``self.compute_stream``).
    producer_streams: tuple[str, ...] = ()
    # Functions that run on a copy thread started where the analysis cannot see.
    copy_thread_functions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Settings:
    root: Path
    config_file: Path | None = None
    select: tuple[str, ...] | None = None  # None: every rule that is on by default
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    force_exclude: bool = False
    # Report findings whose hazard the code does not establish (marked as uncertain).
    include_uncertain: bool = False
    # The baseline file: findings it records are not reported (kvguard.lint.baseline).
    baseline: Path | None = None
    analysis: AnalysisSettings = field(default_factory=AnalysisSettings)

    @property
    def all_excludes(self) -> tuple[str, ...]:
        return self.exclude + self.extend_exclude

    def fingerprint(self) -> str:
        return repr(self.analysis)


_LIST_KEYS = ("select", "extend-select", "ignore", "exclude", "extend-exclude")
_ANALYSIS_KEYS = ("barrier-functions", "copy-functions", "producer-streams", "copy-thread-functions")
_FLAG_KEYS = ("force-exclude", "include-uncertain")
_KNOWN_KEYS = frozenset({*_LIST_KEYS, *_ANALYSIS_KEYS, *_FLAG_KEYS, "per-file-ignores", "baseline"})


def find_config(start: Path) -> Path | None:
    """The nearest pyproject.toml above ``start`` that has a ``[tool.kvguard]`` table."""
    directory = start if start.is_dir() else start.parent
    for candidate in (directory, *directory.parents):
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file() and _has_kvguard_table(pyproject):
            return pyproject
    return None


def _has_kvguard_table(pyproject: Path) -> bool:
    try:
        tool = _read_toml(pyproject).get("tool")
    except ConfigError:
        # A broken pyproject.toml that does not configure kvguard is not our business...
        # unless it mentions us, in which case the user must hear about it.
        try:
            return "[tool.kvguard" in pyproject.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
    # A ``tool`` that is not a table mentions no kvguard table; one whose ``kvguard`` entry is
    # not a table does, wrongly, and load_settings says so.
    return isinstance(tool, dict) and "kvguard" in tool


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            document: dict[str, Any] = tomllib.load(handle)
            return document
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 (byte {error.start})") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None


def load_settings(config_file: Path | None, start: Path, known_codes: Iterable[str]) -> Settings:
    """Settings from an explicit file, or the nearest pyproject.toml with ``[tool.kvguard]``."""
    explicit = config_file is not None
    path = config_file if explicit else find_config(start)
    if path is None:
        root = start if start.is_dir() else start.parent
        return Settings(root=root.resolve())
    document = _read_toml(path)
    if path.name == "pyproject.toml" or "tool" in document:
        tool = document.get("tool", {})
        if not isinstance(tool, dict):
            raise ConfigError(f"{path}: 'tool' must be a table ([tool.kvguard]), not {tool!r}")
        table = tool.get("kvguard")
        if table is not None and not isinstance(table, dict):
            raise ConfigError(
                f"{path}: 'tool.kvguard' must be a table ([tool.kvguard] with keys under it), not {table!r}"
            )
        if table is None:
            if explicit:
                raise ConfigError(f"{path}: no [tool.kvguard] table")
            table = {}
        prefix = "tool.kvguard."
    else:
        table, prefix = document, ""  # a standalone kvguard.toml
    return parse_table(table, path, prefix, tuple(known_codes))


def parse_table(table: Mapping[str, Any], path: Path, prefix: str, known_codes: tuple[str, ...]) -> Settings:
    unknown = sorted(set(table) - _KNOWN_KEYS)
    if unknown:
        valid = ", ".join(sorted(_KNOWN_KEYS))
        raise ConfigError(f"{path}: unknown key '{prefix}{unknown[0]}' (valid keys: {valid})")
    values: dict[str, Any] = {}
    for key in _LIST_KEYS:
        if key in table:
            values[key] = _string_list(table[key], f"{prefix}{key}", path)
    for key in ("select", "extend-select", "ignore"):
        for selector in values.get(key, ()):
            check_selector(selector, known_codes, f"{path}: '{prefix}{key}'")
    per_file: list[tuple[str, tuple[str, ...]]] = []
    raw_per_file = table.get("per-file-ignores", {})
    if not isinstance(raw_per_file, dict):
        raise ConfigError(f"{path}: '{prefix}per-file-ignores' must be a table of pattern = [codes]")
    for pattern, codes in raw_per_file.items():
        selectors = _string_list(codes, f"{prefix}per-file-ignores.{pattern}", path)
        for selector in selectors:
            check_selector(selector, known_codes, f"{path}: '{prefix}per-file-ignores.{pattern}'")
        per_file.append((pattern, selectors))
    flags = {key: table.get(key, False) for key in _FLAG_KEYS}
    for key, flag in flags.items():
        if not isinstance(flag, bool):
            raise ConfigError(f"{path}: '{prefix}{key}' must be true or false, not {flag!r}")
    baseline = table.get("baseline")
    if baseline is not None and (not isinstance(baseline, str) or not baseline):
        raise ConfigError(f"{path}: '{prefix}baseline' must be a file name (a string), not {baseline!r}")
    analysis = AnalysisSettings(
        *(_string_list(table.get(key, []), f"{prefix}{key}", path) for key in _ANALYSIS_KEYS)
    )
    settings = Settings(root=path.parent.resolve(), config_file=path, analysis=analysis)
    return replace(
        settings,
        select=values.get("select"),
        extend_select=values.get("extend-select", ()),
        ignore=values.get("ignore", ()),
        per_file_ignores=tuple(per_file),
        exclude=values.get("exclude", DEFAULT_EXCLUDE),
        extend_exclude=values.get("extend-exclude", ()),
        force_exclude=flags["force-exclude"],
        include_uncertain=flags["include-uncertain"],
        baseline=path.parent / baseline if baseline is not None else None,
    )


def _string_list(value: Any, key: str, path: Path) -> tuple[str, ...]:
    # A bare string is refused, not taken as a list of one: ``exclude = "build"`` is as likely
    # a mistake for a list as ``select = "KVG001,KVG002"`` is for two codes.
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{path}: '{key}' must be a list of strings, such as [\"...\"], not {value!r}")
    return tuple(value)


def check_selector(selector: str, known_codes: tuple[str, ...], where: str) -> None:
    """A selector is a code or a code prefix (``KVG0``) that matches at least one rule."""
    if selector.upper() == "ALL":
        return
    if not any(code.startswith(selector.upper()) for code in known_codes):
        raise ConfigError(f"{where}: unknown rule code or prefix '{selector}' (see `kvguard rules`)")


def matches(code: str, selectors: Iterable[str]) -> bool:
    return any(s.upper() == "ALL" or code.startswith(s.upper()) for s in selectors)


def enabled_codes(settings: Settings, defaults: Mapping[str, bool]) -> frozenset[str]:
    """Codes that run: the selection (or the defaults), plus extensions, minus ignores."""
    if settings.select is None:
        chosen = {code for code, on in defaults.items() if on}
    else:
        chosen = {code for code in defaults if matches(code, settings.select)}
    chosen |= {code for code in defaults if matches(code, settings.extend_select)}
    return frozenset(code for code in chosen if not matches(code, settings.ignore))
