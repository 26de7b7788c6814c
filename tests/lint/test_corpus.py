"""The corpus: small projects in the shapes public offload code takes, buggy and correct, each
checked whole. A finding is expected exactly where a comment ``# expect: CODE[, CODE]`` sits on
the line before it; correct code carries no annotation. Any miss or extra finding fails."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from kvguard.lint.config import Settings
from kvguard.lint.engine import run_check
from lint_rules import RULES
from tests.lint.conftest import KNOWN

CORPUS = Path(__file__).parent / "corpus"
_EXPECT = re.compile(r"#\s*expect:\s*(KVG\d{3}(?:\s*,\s*KVG\d{3})*)\s*$")

Found = set[tuple[str, int, str]]

# Projects the analysis does not get right yet, and why. Each is an expected failure that
# must fail: when a fix makes one pass, the run fails until its entry is removed here.
KNOWN_GAPS = {
    "kv_device_scratch_drain_correct": "a source only the copy's own stream writes, on a path that skips it",
    "hf_accelerate_stream_hooks_buggy": "KVG003 after copies in a forward hook registered on the model",
    "hf_flexgen_three_streams_buggy": "loads into one buffer of a set made together, used by compute",
    "hf_flexgen_three_streams_correct": "writes to one buffer of a set made together are not told apart",
    "hf_offloaded_static_cache_events_buggy": "KVG003 by torch.save of a dict of lists of pinned tensors",
    "kv_precision_orderings_buggy": "events of a dict comprehension are one event",
    "train_hybrid_optimizer_offload_buggy": "writes by a fused in-place optimizer op on a list of params",
    "train_zero_infinity_swap_buggy": "KVG003 through a pool buffer's view-returning method",
    "kv_lmcache_property_objects_buggy": "a generator's copies, their sides placed only through next()",
    "train_activation_offload_buggy": "barrier before an opaque call that writes",
    "train_lazy_copy_stream_buggy": "KVG003 through dict entries under computed keys",
    "train_offload_config_barrier_buggy": "KVG003 under a constructor flag that is off by default",
    "srv_lmcache_disk_buggy": "files reached only through fields and executor.submit miss the gate",
    "train_fsdp_cpu_offload_grads_buggy": "loss.backward() runs no autograd Function's backward",
    "train_fsdp_grad_reduce_offload_buggy": "a collective on the side stream reads the unordered "
    "gradient; the copy reads only the shard that collective wrote there",
    "train_mcore_pack_hook_offload_buggy": "a pool's acquire that is fresh on one path only",
}


def _projects() -> list[Path]:
    return sorted(path for path in CORPUS.iterdir() if path.is_dir())


def _expected(project: Path) -> Found:
    expected: Found = set()
    for source in sorted(project.rglob("*.py")):
        relative = source.relative_to(project).as_posix()
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
            match = _EXPECT.search(line)
            if match:
                for code in re.split(r"\s*,\s*", match.group(1)):
                    expected.add((relative, number + 1, code))
    return expected


def test_the_corpus_has_buggy_and_correct_projects() -> None:
    projects = _projects()
    buggy = [p for p in projects if _expected(p)]
    assert buggy and len(buggy) < len(projects)


def _cases() -> list[object]:
    return [
        pytest.param(
            path,
            id=path.name,
            marks=[pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[path.name])]
            if path.name in KNOWN_GAPS
            else [],
        )
        for path in _projects()
    ]


def test_every_known_gap_is_a_project() -> None:
    assert set(KNOWN_GAPS) <= {path.name for path in _projects()}


@pytest.mark.parametrize("project", _cases())
def test_findings_are_exactly_the_annotated_ones(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A copy outside this repository: the project is checked as its own, the way its users
    # would have it, not as a part of kvguard's work tree.
    checkout = tmp_path / project.name
    shutil.copytree(project, checkout)
    monkeypatch.chdir(checkout)
    rules = [rule() for rule in RULES]
    result = run_check([Path(".")], Settings(root=checkout), rules, KNOWN, jobs=1, use_cache=False)
    found = {(f.path, f.span.line, f.code) for f in result.findings}
    assert found == _expected(project)
