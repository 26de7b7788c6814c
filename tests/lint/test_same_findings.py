"""The same findings however a project is asked about: from any working directory, for the
whole project, a directory of it, or any subset of its files (as pre-commit passes them)."""

from __future__ import annotations

import itertools
import subprocess
from pathlib import Path

import pytest

from lint_rules import offload_shapes as shapes
from tests.lint.conftest import json_findings, write_tree

Found = set[tuple[str, int, str]]


def _check(cwd: Path, *targets: str) -> Found:
    return {
        ((cwd / f["path"]).resolve().as_posix(), f["line"], f["code"]) for f in json_findings(cwd, *targets)
    }


@pytest.fixture(params=["configured", "git"])
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The buggy three-module offload shape under ``src/offload/``, in a project marked by a
    configuration or by git."""
    root = tmp_path / "project"
    # Absolute imports, as vLLM writes them: they resolve only if module names come from the
    # package layout, not from where kvguard runs.
    files = {
        path.replace("pkg/", "src/offload/"): code.replace("from .", "from offload.")
        for path, code in shapes.BUGGY.items()
    }
    write_tree(root, files)
    if request.param == "configured":
        (root / "pyproject.toml").write_text("[tool.kvguard]\n")
    else:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_the_whole_project_finds_the_race(project: Path) -> None:
    found = _check(project, ".")
    codes = sorted(code for _, _, code in found)
    assert codes == ["KVG001", "KVG002", "KVG004"], found  # the store race, and the unordered load


def test_every_working_directory_and_argument_gives_the_same_findings(project: Path) -> None:
    whole = _check(project, ".")
    package = project / "src" / "offload"
    assert _check(project, "src") == whole
    assert _check(project, "src/offload") == whole
    assert _check(package, ".") == whole
    assert _check(package.parent, "offload") == whole
    assert _check(project.parent, "project") == whole


def test_any_subset_of_files_reports_the_findings_it_touches(project: Path) -> None:
    """A subset (what pre-commit passes for a commit) reports every finding of the whole run
    whose copy, or whose path to the copy, lies in one of the given files; nothing else."""
    whole = _check(project, ".")
    package = project / "src" / "offload"
    modules = sorted(p.name for p in package.glob("*.py"))
    flows = {
        (f["line"], f["code"]): {step["path"] for step in f.get("flow", [])} | {f["path"]}
        for f in json_findings(package, ".")
    }
    for size in (1, 2):
        for subset in itertools.combinations(modules, size):
            found = _check(package, *subset)
            expected = {finding for finding in whole if flows[(finding[1], finding[2])] & set(subset)}
            assert found == expected, subset
