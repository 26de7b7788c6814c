"""The hook under real pre-commit, configured as docs/adopting.md shows it: pinned with
`pre-commit autoupdate`, one kvguard run per commit however many files, a staged race fails,
a clean change passes, and an edit on an old finding's path passes with a baseline."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from lint_rules import offload_shapes
from tests.lint.test_bad_input import RACE
from tests.lint.test_cli import CLEAN

REPOSITORY = Path(__file__).resolve().parents[1]
ADOPTING = REPOSITORY / "docs" / "adopting.md"
_BESIDE = Path(sys.executable).parent / "pre-commit"
PRE_COMMIT = str(_BESIDE) if _BESIDE.exists() else shutil.which("pre-commit") or "pre-commit"
# What pre-commit needs of the hook repository: its manifest and an installable package.
_HOOK_FILES = (".pre-commit-hooks.yaml", "pyproject.toml", "README.md", "kvguard", "lint_rules")
_AUTHOR = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    home = tmp_path_factory.mktemp("pre-commit-home")
    env = {key: value for key, value in os.environ.items() if not key.startswith("PRE_COMMIT")}
    return {**env, **_AUTHOR, "PRE_COMMIT_HOME": str(home), "XDG_CACHE_HOME": str(home / "xdg")}


@pytest.fixture(scope="module")
def hook_repository(tmp_path_factory: pytest.TempPathFactory, environment: dict[str, str]) -> Path:
    """kvguard's working tree as committed code: what a user's `repo:` URL would hold."""
    clone = tmp_path_factory.mktemp("kvguard-repository")
    for name in _HOOK_FILES:
        source = REPOSITORY / name
        if source.is_dir():
            shutil.copytree(source, clone / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, clone / name)
    for command in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-qm", "kvguard"]):
        _run(command, clone, environment).check_returncode()
    return clone


def _documented_config() -> str:
    """The pre-commit configuration the adoption guide shows."""
    blocks = re.findall(r"^```yaml\n(.*?)^```$", ADOPTING.read_text(), re.DOTALL | re.MULTILINE)
    configs = [block for block in blocks if block.startswith("repos:")]
    assert len(configs) == 1, "docs/adopting.md shows one pre-commit configuration"
    return configs[0]


def test_the_readme_shows_the_documented_configuration() -> None:
    readme = (REPOSITORY / "README.md").read_text()
    if "id: kvguard" not in readme:
        pytest.skip("the README shows no pre-commit configuration")
    assert f"```yaml\n{_documented_config()}```" in readme


@pytest.fixture
def fork(tmp_path: Path, hook_repository: Path, environment: dict[str, str]) -> Iterator[Path]:
    """A project with the documented hook configuration, pinned by `pre-commit autoupdate`."""
    project = tmp_path / "fork"
    project.mkdir()
    config = _documented_config()
    hook = yaml.safe_load(config)["repos"][0]
    assert re.fullmatch(r"<[^>]+>", hook["rev"]), "the guide shows a placeholder, not a rev that exists"
    (project / ".pre-commit-config.yaml").write_text(config.replace(hook["repo"], str(hook_repository)))
    for command in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-qm", "config"]):
        _run(command, project, environment).check_returncode()
    updated = _run([PRE_COMMIT, "autoupdate", "--freeze"], project, environment)
    assert updated.returncode == 0, updated.stdout + updated.stderr
    head = _run(["git", "rev-parse", "HEAD"], hook_repository, environment).stdout.strip()
    assert yaml.safe_load((project / ".pre-commit-config.yaml").read_text())["repos"][0]["rev"] == head
    yield project


def _commit(project: Path, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    _run(["git", "add", "."], project, environment).check_returncode()
    return _run([PRE_COMMIT, "run"], project, environment)


def test_a_staged_race_fails_and_a_clean_change_passes(fork: Path, environment: dict[str, str]) -> None:
    (fork / "offload").mkdir()
    (fork / "offload" / "store.py").write_text(RACE)
    (fork / "README.txt").write_text("not python\n")
    racy = _commit(fork, environment)
    assert racy.returncode == 1, racy.stdout + racy.stderr
    assert "offload/store.py:5:9: KVG001" in racy.stdout and "Failed" in racy.stdout

    (fork / "offload" / "store.py").write_text(CLEAN)
    clean = _commit(fork, environment)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout


def test_a_long_file_list_is_one_kvguard_run(fork: Path, environment: dict[str, str]) -> None:
    """pre-commit splits long argument lists into several runs, each with its own summary;
    the hook takes no file names, so there is one run whatever the number of files."""
    package = fork / "pkg"
    package.mkdir()
    for index in range(4000):  # 4,000 names of 44 bytes: past the 128 KiB where pre-commit splits
        (package / f"module_with_a_long_enough_name_{index:04}.py").write_text(f"VALUE = {index}\n")
    (package / "store.py").write_text(RACE)
    _run(["git", "add", "."], fork, environment).check_returncode()
    _run(["git", "commit", "-qm", "tree", "--no-verify"], fork, environment).check_returncode()
    result = _run([PRE_COMMIT, "run", "--all-files"], fork, environment)
    assert result.returncode == 1, result.stdout + result.stderr
    summaries = [line for line in result.stdout.splitlines() if line.startswith("Found ")]
    assert summaries == [line for line in summaries if "(4001 files checked)" in line] and len(summaries) == 1


def test_an_edit_on_an_old_findings_path_passes_with_the_baseline(
    fork: Path, environment: dict[str, str]
) -> None:
    for relative, text in offload_shapes.BUGGY.items():
        (fork / relative).parent.mkdir(parents=True, exist_ok=True)
        (fork / relative).write_text(text)
    (fork / "pyproject.toml").write_text('[tool.kvguard]\nbaseline = "kvguard-baseline.json"\n')
    written = _run(
        [sys.executable, "-m", "kvguard", "check", "--write-baseline", "kvguard-baseline.json"],
        fork,
        environment,
    )
    assert written.returncode == 0, written.stderr
    _run(["git", "add", "."], fork, environment).check_returncode()
    _run(["git", "commit", "-qm", "adopt kvguard", "--no-verify"], fork, environment).check_returncode()

    worker = fork / "pkg" / "worker.py"
    worker.write_text(
        "# a one-line comment in the worker, which lies on the findings' path\n" + worker.read_text()
    )
    edited = _commit(fork, environment)
    assert edited.returncode == 0, edited.stdout + edited.stderr

    (fork / "pkg" / "new_store.py").write_text(RACE)
    new = _commit(fork, environment)
    assert new.returncode == 1 and "pkg/new_store.py:5:9: KVG001" in new.stdout
