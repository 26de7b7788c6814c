"""The baseline: fingerprints that survive edits, and runs that report only new findings."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kvguard.lint.baseline import BaselineError, normalised, read_baseline
from lint_rules import offload_shapes
from tests.lint.conftest import Lint, write_tree
from tests.lint.test_bad_input import RACE
from tests.lint.test_cli import kvguard

TWO_STORES = (
    "import torch\n\n"
    "def store(gpu, stream):\n"
    "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
    "    with torch.cuda.stream(stream):\n"
    "        cpu.copy_(gpu, non_blocking=True)\n"
    "    with torch.cuda.stream(stream):\n"
    "        cpu.copy_(gpu, non_blocking=True)\n\n"
    "def other(gpu, stream):\n"
    "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
    "    with torch.cuda.stream(stream):\n"
    "        cpu.copy_(gpu, non_blocking=True)\n"
)


def _fingerprints(lint: Lint, files: dict[str, str]) -> list[str]:
    return [f.fingerprint for f in lint(files, select=("KVG001",)).findings]


def test_a_fingerprint_survives_moves_reformatting_and_comments(lint: Lint) -> None:
    before = _fingerprints(lint, {"a.py": RACE})
    moved = RACE.replace("import torch\n", "import torch\n\n# a comment\nUNRELATED = 1\n\n").replace(
        "        cpu.copy_(gpu, non_blocking=True)\n",
        "        cpu.copy_(\n            gpu,  # the KV block\n            non_blocking=True,\n        )\n",
    )
    assert _fingerprints(lint, {"a.py": moved}) == before
    assert len(before) == 1 and len(before[0]) == 32


def test_identical_statements_get_fingerprints_of_their_own(lint: Lint) -> None:
    """By function, then by occurrence within it."""
    prints = _fingerprints(lint, {"a.py": TWO_STORES})
    assert len(prints) == len(set(prints)) == 3
    # Code added to another function leaves the store function's findings as they were.
    grown = TWO_STORES.replace("def other(gpu, stream):\n", "def other(gpu, stream):\n    gpu.fill_(0)\n")
    assert _fingerprints(lint, {"a.py": grown})[:2] == prints[:2]


def test_a_fingerprint_does_not_depend_on_what_the_run_reports(lint: Lint) -> None:
    """Suppressing the first of two identical findings leaves the second's fingerprint."""
    prints = _fingerprints(lint, {"a.py": TWO_STORES})
    suppressed = TWO_STORES.replace(
        "non_blocking=True)\n    with", "non_blocking=True)  # kvguard: ignore[KVG001]\n    with", 1
    )
    assert _fingerprints(lint, {"a.py": suppressed}) == prints[1:]


def test_normalised_source_ignores_layout_not_strings() -> None:
    assert normalised("f(\n    a,  # why\n    b,\n)") == "f(a,b)"
    assert normalised("f('# in a string',  b)") == "f('#inastring',b)"


@pytest.fixture
def fork(tmp_path: Path) -> Path:
    """The worker / backend / copy-thread / memops shape with its race, in a git work tree."""
    write_tree(tmp_path, offload_shapes.BUGGY)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    return tmp_path


def test_write_baseline_then_only_new_findings_fail(fork: Path) -> None:
    written = kvguard("check", "--write-baseline", "kvguard-baseline.json", cwd=fork)
    assert (written.returncode, written.stdout) == (0, "")
    assert "wrote 3 findings to the baseline kvguard-baseline.json" in written.stderr
    document = json.loads((fork / "kvguard-baseline.json").read_text())
    assert document["version"] == 1
    assert [(e["code"], e["path"], e["function"]) for e in document["findings"]] == [
        ("KVG001", "pkg/memops.py", "run_plan"),
        ("KVG002", "pkg/memops.py", "run_plan"),
        ("KVG004", "pkg/memops.py", "run_plan"),
    ]

    clean = kvguard("check", "--baseline", "kvguard-baseline.json", cwd=fork)
    assert (clean.returncode, clean.stdout) == (
        0,
        "All checks passed (4 files checked, 3 in the baseline).\n",
    )

    (fork / "pkg" / "new.py").write_text(RACE)
    new = kvguard("check", "-q", "--baseline", "kvguard-baseline.json", cwd=fork)
    assert new.returncode == 1
    assert [line.split(" ")[:2] for line in new.stdout.splitlines()] == [["pkg/new.py:5:9:", "KVG001"]]
    everything = kvguard("check", "-q", "--no-baseline", cwd=fork)
    assert len(everything.stdout.splitlines()) == 4


def test_a_commit_touching_a_file_on_an_old_findings_path_passes(fork: Path) -> None:
    """The worker lies on the path of the memops findings: editing it must not make them new."""
    (fork / "pyproject.toml").write_text('[tool.kvguard]\nbaseline = "kvguard-baseline.json"\n')
    assert kvguard("check", "--write-baseline", "kvguard-baseline.json", cwd=fork).returncode == 0
    worker = fork / "pkg" / "worker.py"
    worker.write_text("# moved down by a comment\n\n" + worker.read_text())
    edited = kvguard("check", "pkg/worker.py", cwd=fork)
    assert (edited.returncode, edited.stdout) == (
        0,
        "All checks passed (1 file checked, 3 more read for context, 3 in the baseline).\n",
    )
    # Without the baseline the same run reports them (they touch the worker).
    assert kvguard("check", "--no-baseline", "pkg/worker.py", cwd=fork).returncode == 1


def test_the_baseline_file_is_stable_for_diffs(fork: Path) -> None:
    kvguard("check", "--write-baseline", "first.json", cwd=fork)
    memops = fork / "pkg" / "memops.py"
    memops.write_text("# lines above every finding\n\n\n" + memops.read_text())
    kvguard("check", "--write-baseline", "second.json", cwd=fork)
    assert (fork / "first.json").read_bytes() == (fork / "second.json").read_bytes()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file (write it with `kvguard check --write-baseline"),
        ("{", "not JSON"),
        ('{"version": 7, "findings": []}', "not a kvguard baseline of version 1 (version: 7)"),
        ('{"version": 1, "findings": [{"code": "KVG001"}]}', "'findings' must be a list of entries"),
    ],
)
def test_a_bad_baseline_exits_2_naming_it(fork: Path, content: str | None, message: str) -> None:
    if content is not None:
        (fork / "b.json").write_text(content)
    result = kvguard("check", "--baseline", "b.json", cwd=fork)
    assert (result.returncode, result.stdout) == (2, "")
    assert f"baseline b.json: {message}" in result.stderr
    assert "Traceback" not in result.stderr
    with pytest.raises(BaselineError):
        read_baseline(fork / "b.json")


def test_the_configured_baseline_is_relative_to_the_configuration(fork: Path) -> None:
    (fork / "pyproject.toml").write_text('[tool.kvguard]\nbaseline = "ci/kvguard-baseline.json"\n')
    (fork / "ci").mkdir()
    assert kvguard("check", "--write-baseline", "ci/kvguard-baseline.json", cwd=fork).returncode == 0
    inside = kvguard("check", ".", cwd=fork / "pkg")
    assert inside.returncode == 0 and "3 in the baseline" in inside.stdout
    (fork / "pyproject.toml").write_text("[tool.kvguard]\nbaseline = 1\n")
    wrong = kvguard("check", cwd=fork)
    assert wrong.returncode == 2 and "'tool.kvguard.baseline' must be a file name" in wrong.stderr
