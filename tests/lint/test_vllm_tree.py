"""kvguard over the whole installed vLLM package of each tested release: no crash, the
offload code of the newest release clean, and exactly the findings docs/triage-vllm.md
explains."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lint.conftest import json_findings
from tests.lint.vllm_edits import backport, regressions
from tests.vllm import venvs

REPOSITORY = Path(__file__).resolve().parents[2]
TRIAGE = REPOSITORY / "docs" / "triage-vllm.md"


def _triaged(release: str) -> set[tuple[str, str]]:
    """(path:line, code) rows of the release's section of the triage report."""
    text = TRIAGE.read_text()
    section = text.split(f"## vLLM {release}", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `(vllm/[^`]+:\d+)` \| (KVG\d{3}) \|", section, flags=re.MULTILINE))


def _package(release: str) -> Path:
    python = venvs.ensure_env(release)
    found = subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.util; print(importlib.util.find_spec('vllm').submodule_search_locations[0])",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout.strip()
    return Path(found)


@pytest.mark.parametrize("release", venvs.RELEASES)
def test_findings_on_the_vllm_package_are_the_triaged_ones(release: str) -> None:
    package = _package(release)
    result = subprocess.run(
        [sys.executable, "-I", "-m", "kvguard", "check", "--format", "json", "--exit-zero", "vllm"],
        cwd=package.parent,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert [f for f in findings if f["code"] == "KVG000"] == []  # every file read and parsed
    found = {(f"{f['path']}:{f['line']}", f["code"]) for f in findings}
    assert found == _triaged(release), "update docs/triage-vllm.md: the findings changed"
    offload = {
        (f["path"], f["code"])
        for f in findings
        if f["path"].startswith(("vllm/v1/simple_kv_offload/", "vllm/v1/kv_offload/"))
    }
    if release == "0.33.0":
        # The fixed store path is clean; its loads still wait for nothing (write-after-read).
        assert offload == {("vllm/v1/simple_kv_offload/cuda_mem_ops.py", "KVG004")}
    else:
        # The store race, both halves; the unordered load.
        assert offload == {
            ("vllm/v1/simple_kv_offload/cuda_mem_ops.py", code) for code in ("KVG001", "KVG002", "KVG004")
        }


def _copy(release: str, destination: Path) -> Path:
    """The release's package copied under ``destination`` (Python files only), in a git work
    tree as a fork's checkout is."""
    shutil.copytree(
        _package(release),
        destination / "vllm",
        ignore=lambda _, names: [n for n in names if n == "__pycache__" or n.endswith((".so", ".pyc"))],
    )
    subprocess.run(["git", "init", "-q", str(destination)], check=True)
    return destination


def _found(cwd: Path, *targets: str) -> set[tuple[str, str]]:
    return {(f["path"], f["code"]) for f in json_findings(cwd, *targets)}


def test_each_regression_of_the_0_33_store_fix_is_found_in_the_whole_package(tmp_path: Path) -> None:
    """In a full copy of the package (not a subtree), each edit that brings the race back is
    reported by a check of the package, and by a check of the edited file alone (what the
    pre-commit hook runs for that commit), from the fork's root and from inside the package."""
    fork = _copy("0.33.0", tmp_path)
    clean = _found(fork, "vllm")
    for name, (_, _, _, code) in regressions.REGRESSIONS.items():
        file = fork / regressions.OFFLOAD / regressions.REGRESSIONS[name][0]
        original = file.read_text()
        edited = regressions.apply(fork, name)
        new = _found(fork, "vllm") - clean
        assert {found_code for _, found_code in new} == {code}, name
        assert new <= _found(fork, edited.relative_to(fork).as_posix()), name
        inside = {(f"vllm/{path}", found_code) for path, found_code in _found(fork / "vllm", ".")}
        assert new <= inside, name
        file.write_text(original)


def test_a_backport_of_the_store_fix_to_0_23_is_clean_of_the_store_race(tmp_path: Path) -> None:
    fork = _copy("0.23.0", tmp_path)
    backport.apply(fork)
    found = {(path, code) for path, code in _found(fork, "vllm") if "simple_kv_offload" in path}
    # The loads stay unordered, as in 0.24.0: the backport fixed stores only.
    assert found == {("vllm/v1/simple_kv_offload/cuda_mem_ops.py", "KVG004")}


def test_no_fix_is_offered_that_would_switch_the_vllm_0_23_loads(tmp_path: Path) -> None:
    """On real code: the seed's ANY literal is built once by `build_params` for stores and
    loads alike, so STREAM there would switch the loads too; kvguard offers no fix and says
    why, and the copy-thread store and load have no mechanical fix either."""
    shutil.copytree(_package("0.23.0"), tmp_path / "vllm", ignore=shutil.ignore_patterns("__pycache__"))

    def kvguard(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-I", "-m", "kvguard", "check", *args, "vllm"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=900,
        )

    diff = kvguard("--diff")
    assert (diff.returncode, diff.stdout) == (0, ""), diff.stderr
    report = json.loads(kvguard("--format", "json", "--exit-zero").stdout)["findings"]
    assert {(f["path"], f["line"], f["code"]) for f in report} == {
        ("vllm/v1/simple_kv_offload/cuda_mem_ops.py", 143, "KVG002"),
        ("vllm/v1/simple_kv_offload/cuda_mem_ops.py", 184, "KVG001"),
        ("vllm/v1/simple_kv_offload/cuda_mem_ops.py", 184, "KVG004"),
    }
    assert all(f["fix"] is None for f in report)
    (order,) = (f for f in report if f["code"] == "KVG002")
    assert "no automatic fix: the same `3` also sets the order of loads from host memory" in order["fix_hint"]
