"""The runtime benchmark's own logic (no GPU): pairing, steady pairs, summaries, CPU pinning."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import runtime_bench
import runtime_gpu_suite

windows = st.floats(min_value=1e-3, max_value=10.0)


@given(st.lists(st.tuples(windows, windows, windows), min_size=1, max_size=20))
def test_a_paired_ratio_is_the_mean_raw_window_over_the_variants(
    repeats: list[tuple[float, float, float]],
) -> None:
    raw = [value for before, after, _ in repeats for value in (before, after)]
    variant = [seconds for _, _, seconds in repeats]
    ratios = runtime_bench.paired_ratios(raw, variant)
    for (before, after, seconds), ratio in zip(repeats, ratios, strict=True):
        assert ratio == pytest.approx((before + after) / 2 / seconds)
    steady = runtime_bench.steady_ratios(raw, ratios)
    kept = [
        ratio
        for (before, after, _), ratio in zip(repeats, ratios, strict=True)
        if abs(after / before - 1) <= runtime_bench.STEADY_BRACKET
    ]
    assert steady == kept


def test_a_bracket_whose_raw_windows_disagree_is_not_steady() -> None:
    raw = [1.0, 1.02, 1.0, 1.5]  # the second bracket caught raw switching state
    ratios = runtime_bench.paired_ratios(raw, [1.0, 1.0])
    assert runtime_bench.steady_ratios(raw, ratios) == [ratios[0]]


def swept_row(variant_seconds: float, repeats: int) -> dict[str, Any]:
    """A sweep row whose raw windows all take 1 s and every variant's `variant_seconds`."""
    brackets = {name: [1.0] * (2 * repeats) for name in runtime_bench.VARIANTS}
    ratios = {
        name: runtime_bench.paired_ratios(brackets[name], [variant_seconds] * repeats)
        for name in runtime_bench.VARIANTS
    }
    return {
        "block_bytes": 16 << 10,
        "batch_blocks": 16,
        "stores": 10,
        "gbps": {"raw": 1.0, **{name: 1.0 / variant_seconds for name in runtime_bench.VARIANTS}},
        "seconds": {},
        "paired_ratios": ratios,
        "brackets": brackets,
        "steady_ratios": {
            name: runtime_bench.steady_ratios(brackets[name], ratios[name]) for name in runtime_bench.VARIANTS
        },
        "raw_spread": 0.0,
        "raw_bracket_change_median": 0.0,
        "raw_bracket_change_max": 0.0,
        "latency_us": {"raw": 10.0, "stock": 20.0, "ordered": 12.0},
        "mean_group": 2.0,
        "verified_blocks": 3,
        "verify_stats": {"checks": 1, "cpu_s": 0.001},
    }


def test_a_row_without_enough_steady_pairs_has_no_steady_figure() -> None:
    few, enough = runtime_bench.MIN_STEADY_PAIRS - 1, runtime_bench.MIN_STEADY_PAIRS
    short, full = runtime_bench.summarize([swept_row(1.25, few), swept_row(1.25, enough)])
    assert short["ordered_ratio_steady"] is None and short["ordered_steady_pairs"] == few
    assert full["ordered_ratio_steady"] == pytest.approx(0.8)
    assert full["ordered_ratio"] == pytest.approx(0.8)
    assert [pair[0] for pair in full["ordered_pairs"]] == pytest.approx([0.8] * enough)


def test_the_suite_summary_counts_rows_against_the_targets() -> None:
    rows = runtime_bench.summarize([swept_row(1.0, 6), swept_row(1.25, 6)])
    bench = {
        "bandwidth": rows,
        "guard": {"copy_cpu": 3, "request_cpu": 5, "cpu_loop_seconds": {"3": [0.01], "5": [0.02]}},
    }
    lines = "\n".join(runtime_gpu_suite.summary({}, bench))
    assert "1/2 >= 0.98" in lines  # 1.0x meets it, 0.8x does not
    assert "copy work on CPU 3, requesting thread on 5" in lines
    assert "loop 10.0 ms on CPU 3 to 20.0 ms on CPU 5" in lines
    assert "| 16 KiB | 16 |" in lines and "0.800x (6)" in lines


def test_backend_threads_are_pinned_copy_thread_to_the_copy_cpu() -> None:
    cpus = sorted(os.sched_getaffinity(0))
    copy_cpu, other_cpu = cpus[0], cpus[-1]
    release = threading.Event()
    threads = [
        threading.Thread(target=release.wait, name=name) for name in ("kvguard-copy", "kvguard-verify")
    ]
    for thread in threads:
        thread.start()
    backend = type("Backend", (), {"_threads": threads})()
    try:
        runtime_bench.pin_backend_threads(backend, copy_cpu, other_cpu)
        assert [os.sched_getaffinity(thread.native_id) for thread in threads] == [{copy_cpu}, {other_cpu}]
    finally:
        release.set()
        for thread in threads:
            thread.join()


def test_cpu_speeds_times_every_allowed_cpu_and_restores_the_affinity() -> None:
    allowed = os.sched_getaffinity(0)
    speeds = runtime_bench.cpu_speeds(rounds=2)
    assert set(speeds) == allowed and all(len(v) == 2 and min(v) > 0 for v in speeds.values())
    assert os.sched_getaffinity(0) == allowed


def test_the_code_digest_changes_with_the_measured_code_only(tmp_path: Path) -> None:
    for name in (
        "kvguard/runtime/backend.py",
        "kvguard/runtime/compare.ptx",
        "tests/gpu/test_a.py",
        "benchmarks/runtime_bench.py",
        "benchmarks/runtime_gpu_suite.py",
        "benchmarks/lint_speed.py",
        "README.md",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    first = runtime_gpu_suite.code_digest(tmp_path)
    (tmp_path / "benchmarks/lint_speed.py").write_text("changed")  # not measured by the suite
    (tmp_path / "README.md").write_text("changed")
    assert runtime_gpu_suite.code_digest(tmp_path) == first
    (tmp_path / "kvguard/runtime/compare.ptx").write_text("changed")
    assert runtime_gpu_suite.code_digest(tmp_path) != first
