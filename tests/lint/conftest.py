from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from kvguard.lint.config import Settings, enabled_codes
from kvguard.lint.engine import CheckResult, run_check
from lint_rules import RULES, default_states

KNOWN = frozenset(rule.code for rule in RULES)

Lint = Callable[..., CheckResult]


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> None:
    for relative, content in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")


def json_findings(cwd: Path, *targets: str) -> list[dict[str, Any]]:
    """The findings of ``kvguard check --format json TARGETS`` run in ``cwd`` (a new process)."""
    result = subprocess.run(
        [sys.executable, "-I", "-m", "kvguard", "check", "--format", "json", "--exit-zero", *targets],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr
    findings: list[dict[str, Any]] = json.loads(result.stdout)["findings"]
    return findings


@pytest.fixture(autouse=True)
def private_cache_key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cache key of each test lives in a directory of its own, not the user's; so does
    the working directory, where a check of files outside any project keeps its cache (in
    the repository's, tests on other workers would overwrite each other's results)."""
    home = tmp_path_factory.mktemp("user-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))
    return home


@pytest.fixture
def lint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Lint:
    """Write files under a temporary project and check them with the real engine."""
    monkeypatch.chdir(tmp_path)

    def run(
        files: Mapping[str, str | bytes], select: tuple[str, ...] | None = None, jobs: int = 1
    ) -> CheckResult:
        write_tree(tmp_path, files)
        settings = Settings(root=tmp_path, select=select)
        codes = enabled_codes(settings, default_states())
        rules = [rule() for rule in RULES if rule.code in codes]
        unselected = [rule() for rule in RULES if rule.code not in codes]
        return run_check(
            [Path(".")], settings, rules, KNOWN, jobs=jobs, use_cache=False, unselected=unselected
        )

    return run
