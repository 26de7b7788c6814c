"""The hook under real pre-commit: a staged race fails, a clean file passes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lint.test_bad_input import RACE
from tests.lint.test_cli import CLEAN

REPOSITORY = Path(__file__).resolve().parents[1]
PRE_COMMIT = shutil.which("pre-commit") or str(Path(sys.executable).parent / "pre-commit")


@pytest.fixture(scope="module")
def environment() -> dict[str, str]:
    env = dict(os.environ)
    # Reused between runs: pre-commit keys hook environments by repository and revision.
    env["PRE_COMMIT_HOME"] = str(Path.home() / ".cache" / "kvguard-tests" / "pre-commit")
    env.update(
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
    )
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_pre_commit_hook_fails_on_a_race_and_passes_clean_code(
    tmp_path: Path, environment: dict[str, str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "offload").mkdir()
    (project / "offload" / "store.py").write_text(RACE)
    (project / "offload" / "safe.py").write_text(CLEAN)
    (project / "README.txt").write_text("not python\n")
    for args in (["git", "init", "-q"], ["git", "add", "."]):
        _run(args, project, environment).check_returncode()

    racy = _run(
        [PRE_COMMIT, "try-repo", str(REPOSITORY), "kvguard", "--files", "offload/store.py", "README.txt"],
        project,
        environment,
    )
    assert racy.returncode == 1, racy.stdout + racy.stderr
    assert "offload/store.py:5:9: KVG001" in racy.stdout
    assert "Failed" in racy.stdout

    clean = _run(
        [PRE_COMMIT, "try-repo", str(REPOSITORY), "kvguard", "--files", "offload/safe.py"],
        project,
        environment,
    )
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout
