"""kvguard over the whole vLLM package of each tested release, copied into a fork's git work
tree: no crash, the offload code of the newest release clean, exactly the findings
docs/triage-vllm.md explains, each regression of the store fix found and a backport clean."""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

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


@dataclass(frozen=True)
class Fork:
    """A release's package copied into a git work tree (a fork's checkout), checked once
    whole: its findings, and a summary cache the tests that copy it start warm from."""

    root: Path
    findings: list[dict[str, Any]]
    env: dict[str, str]

    def copy(self, destination: Path) -> Path:
        """The checkout, cache included, copied to ``destination``."""
        shutil.copytree(self.root, destination, symlinks=True)
        return destination


def _check(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-m", "kvguard", "check", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )


def _findings(cwd: Path, env: dict[str, str], *targets: str) -> list[dict[str, Any]]:
    result = _check(cwd, env, "--format", "json", "--exit-zero", *targets)
    assert result.returncode == 0, result.stderr
    findings: list[dict[str, Any]] = json.loads(result.stdout)["findings"]
    return findings


def _found(cwd: Path, env: dict[str, str], *targets: str) -> set[tuple[str, str]]:
    return {(f["path"], f["code"]) for f in _findings(cwd, env, *targets)}


def _shared_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory every worker of this run sees (under xdist each worker has a base
    directory of its own, beside the others'); this run's own without xdist."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def forks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Fork]:
    """Each release's fork, made and checked once per run, on first use, by whichever worker
    needs it first (the others wait for it). The cache key's home is shared too, so that copies
    of a fork read its cache (a key per test would refuse it)."""
    shared = _shared_directory(tmp_path_factory)
    home = shared / "vllm-tree-cache-key"
    home.mkdir(mode=0o700, exist_ok=True)
    env = {**os.environ, "XDG_CACHE_HOME": str(home)}

    class Forks(dict[str, Fork]):
        def __missing__(self, release: str) -> Fork:
            root = shared / f"vllm-{release}-fork"
            report = shared / f"vllm-{release}-findings.json"
            with (shared / f"vllm-{release}.lock").open("w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not report.exists():
                    _copy(release, root)
                    made = report.with_suffix(".partial")
                    made.write_text(json.dumps(_findings(root, env, "vllm")))
                    made.replace(report)
            self[release] = Fork(root, json.loads(report.read_text()), env)
            return self[release]

    return Forks()


@pytest.mark.slow(12)
def test_findings_on_the_0_33_package_are_the_triaged_ones(forks: dict[str, Fork]) -> None:
    _assert_triaged(forks["0.33.0"].findings, "0.33.0")


@pytest.mark.slow(7)
def test_findings_on_the_0_23_package_are_the_triaged_ones(forks: dict[str, Fork]) -> None:
    _assert_triaged(forks["0.23.0"].findings, "0.23.0")


def _assert_triaged(findings: list[dict[str, Any]], release: str) -> None:
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
        # The store race, both halves; the unordered load; and the load of the CPU offloading
        # handler, whose stream waits for the compute stream only when it stores (through the
        # copy function it holds, and the Triton path's fallback to the same op).
        assert offload == {
            *(("vllm/v1/simple_kv_offload/cuda_mem_ops.py", code) for code in ("KVG001", "KVG002", "KVG004")),
            ("vllm/v1/kv_offload/cpu/gpu_worker.py", "KVG004"),
            ("vllm/v1/kv_offload/cpu/swap_blocks_triton.py", "KVG004"),
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


@pytest.mark.slow(11)
@pytest.mark.parametrize("name", sorted(regressions.REGRESSIONS))
def test_each_regression_of_the_0_33_store_fix_is_found_in_the_whole_package(
    name: str, forks: dict[str, Fork], tmp_path: Path
) -> None:
    """In a full copy of the package (not a subtree), each edit that brings the race back is
    reported by a check of the package, by a check of the edited file alone (what the
    pre-commit hook runs for that commit), and from the package's own directory (`cd vllm &&
    kvguard check .`: module names and cache entries come from the fork's root, so that run
    reuses the first one's result)."""
    clean = forks["0.33.0"]
    fork = clean.copy(tmp_path / "fork")
    before = {(f["path"], f["code"]) for f in clean.findings}
    edited = regressions.apply(fork, name)
    new = _found(fork, clean.env, "vllm") - before
    assert {found_code for _, found_code in new} == {regressions.REGRESSIONS[name][3]}
    assert new <= _found(fork, clean.env, edited.relative_to(fork).as_posix())
    assert new <= {(f"vllm/{path}", code) for path, code in _found(fork / "vllm", clean.env, ".")}


@pytest.mark.slow(3)
def test_a_backport_of_the_store_fix_to_0_23_is_clean_of_the_store_race(
    forks: dict[str, Fork], tmp_path: Path
) -> None:
    base = forks["0.23.0"]
    fork = base.copy(tmp_path / "fork")
    backport.apply(fork)
    found = {(path, code) for path, code in _found(fork, base.env, "vllm") if "simple_kv_offload" in path}
    # The loads stay unordered, as in 0.24.0: the backport fixed stores only.
    assert found == {("vllm/v1/simple_kv_offload/cuda_mem_ops.py", "KVG004")}


@pytest.mark.slow(2)
def test_no_fix_is_offered_that_would_switch_the_vllm_0_23_loads(forks: dict[str, Fork]) -> None:
    """On real code: the seed's ANY literal is built once by `build_params` for stores and
    loads alike, so STREAM there would switch the loads too; kvguard offers no fix and says
    why, and the copy-thread store and load have no mechanical fix either. The one fix offered
    is the offloading handler's, in the device API it uses: the line later releases added."""
    fork = forks["0.23.0"]
    diff = _check(fork.root, fork.env, "--diff", "vllm")
    assert diff.returncode == 1, diff.stderr  # there is a diff
    changed = [
        line
        for line in diff.stdout.splitlines()
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))
    ]
    assert changed == ["+        stream.wait_stream(current_platform.current_stream())"]
    assert "a/vllm/v1/kv_offload/cpu/gpu_worker.py" in diff.stdout
    report = [f for f in fork.findings if "simple_kv_offload" in f["path"]]
    assert {(f["path"], f["line"], f["code"]) for f in report if "simple_kv_offload" in f["path"]} == {
        ("vllm/v1/simple_kv_offload/cuda_mem_ops.py", 184, "KVG002"),
        ("vllm/v1/simple_kv_offload/cuda_mem_ops.py", 184, "KVG001"),
        ("vllm/v1/simple_kv_offload/cuda_mem_ops.py", 184, "KVG004"),
    }
    assert all(f["fix"] is None for f in report)
    (order,) = (f for f in report if f["code"] == "KVG002")
    assert "no automatic fix: the same `3` also sets the order of loads from host memory" in order["fix_hint"]
