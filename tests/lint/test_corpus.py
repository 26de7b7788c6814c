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
    "hf_accelerate_stream_hook_buggy": "placement lost when constructor arguments cross a module",
    "hf_accelerator_stream_cache_buggy": "set_stream not modelled; methods of list elements not followed",
    "hf_beam_reorder_offload_buggy": "copy_ and out= after the barrier not counted as producer writes",
    "hf_default_stream_barrier_buggy": "default_stream() waited under another current stream",
    "hf_flexgen_overlap_schedule_buggy": "methods of list elements not followed; events in lists",
    "hf_offloaded_cache_set_stream_buggy": "torch.cuda.set_stream not modelled",
    "hf_prompt_cache_placement_buggy": "new_empty(device=...) on an unplaced receiver",
    "hf_prompt_cache_placement_correct": "fresh destination allocated on the side stream still reported",
    "hf_snapshot_helper_producer_buggy": "writes in helpers called after the barrier",
    "kv_persistent_barrier_buggy": "barrier carried across calls",
    "kv_star_streams_helper_buggy": "helpers looping over *streams",
    "kv_star_streams_helper_correct": "helpers looping over *streams",
    "kv_swap_blocks_op_buggy": "custom op spelling",
    "kv_transitive_relay_correct": "transitive ordering through an intermediate stream",
    "raw_cudart_block_offload_buggy": "cuda-python stream constructors returning (err, stream)",
    "raw_cumemcpy_origin_correct": "cuda-python function-style events and syncs",
    "raw_cupy_event_barrier_buggy": "cupy stream.record() and producer stream",
    "raw_cupy_event_barrier_correct": "cupy stream.record() and producer stream",
    "raw_cupy_handle_interop_correct": "cuda-python function-style events and syncs",
    "raw_cupy_stream_store_buggy": "KVG003 after cupy get(out=)",
    "raw_cupy_with_stream_load_buggy": "cupy `with stream:` and ndarray.set",
    "raw_driver_ptr_tables_correct": "cuda-python function-style events and syncs",
    "raw_numba_load_thread_buggy": "numba copies",
    "raw_numba_store_buggy": "numba copies",
    "raw_numpy_ptr_spill_buggy": "KVG003 after raw pointer copies",
    "raw_numpy_ptr_spill_correct": "cuda-python function-style events and syncs",
    "srv_hicache_layerwise_load_correct": "E.wait(S) on an attribute of a returned object",
    "srv_hicache_storage_executor_buggy": "executor.submit jobs run on another thread",
    "srv_hicache_stream_helpers_buggy": "helpers looping over *streams",
    "srv_hicache_stream_helpers_correct": "helpers looping over *streams",
    "srv_hicache_stream_table_correct": "streams held in dicts, lists and properties",
    "srv_hicache_write_thread_correct": "payload event recorded under the caller's stream context",
    "srv_lmcache_batched_store_buggy": "KVG003 through comprehensions and zip",
    "srv_lmcache_connector_hooks_buggy": "base-class constructor fields in subclass methods",
    "srv_lmcache_stream_callbacks_buggy": "lambdas and callables passed to helpers",
    "train_activation_offload_buggy": "barrier before an opaque call that writes",
    "train_dynamic_batch_metadata_buggy": "KVG003 across sibling calls",
    "train_host_sync_forms_correct": "blocking .item()/.tolist()/.cpu() as host syncs",
    "train_lazy_copy_stream_buggy": "KVG003 through dict entries under computed keys",
    "train_nvme_param_swap_buggy": "aio writes as host reads",
    "train_offload_config_barrier_buggy": "pinned tuple stored back into the iterated dict",
    "train_swap_key_events_buggy": "event recorded on the copy stream in another method",
    "train_swap_thread_queue_correct": "event recorded under the caller's stream context",
    "train_swap_writer_thread_buggy": "KVG003 through a pool method's return",
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
