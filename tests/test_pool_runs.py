"""Pooling the paired repeats of several suite runs (benchmarks/pool_runs.py), no GPU."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import pool_runs

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "pool_runs.py"
ratios = st.lists(st.floats(min_value=0.5, max_value=1.5), min_size=1, max_size=12)


def run(rows: list[tuple[int, int, list[float], list[float]]]) -> dict[str, Any]:
    """A bench.json holding these rows: (block bytes, blocks, ordered ratios, verified ratios)."""
    return {"bandwidth": [
        {"block_bytes": block, "batch_blocks": batch,
         "ordered_pairs": [[ratio, 0.01, 0.01] for ratio in ordered],
         "verified_pairs": [[ratio, 0.01, 0.01] for ratio in verified],
         "ordered_ratio": statistics.median(ordered), "verified_ratio": statistics.median(verified)}
        for block, batch, ordered, verified in rows]}


@given(st.lists(st.tuples(ratios, ratios), min_size=1, max_size=5))
def test_the_pooled_median_is_over_every_runs_pairs(runs: list[tuple[list[float], list[float]]]) -> None:
    pooled = pool_runs.pooled_rows([run([(65536, 128, ordered, verified)])
                                    for ordered, verified in runs])
    assert len(pooled) == 1
    every_ordered = [ratio for ordered, _ in runs for ratio in ordered]
    assert pooled[0]["ordered_pooled"] == statistics.median(every_ordered)
    assert pooled[0]["ordered_pairs"] == len(every_ordered)
    assert pooled[0]["verified_pooled"] == statistics.median(
        [ratio for _, verified in runs for ratio in verified])
    assert pooled[0]["ordered_per_run"] == [statistics.median(ordered) for ordered, _ in runs]


def test_rows_below_a_target_are_marked_and_counted() -> None:
    rows = pool_runs.pooled_rows([run([(65536, 128, [0.97, 0.974], [0.99]),
                                       (1 << 20, 16, [0.99], [0.96])])])
    text = pool_runs.table(rows, ["a"])
    assert "| 64 KiB | 128 | 2 | 0.9720x (below) | 0.972 | 0.9900x | 0.990 |" in text
    assert "ordered: pooled median >= 0.98x on 1 of 2 rows; lowest 0.9720x (64 KiB x 128)" in text
    assert "verified: pooled median >= 0.97x on 1 of 2 rows; lowest 0.9600x (1024 KiB x 16)" in text


def test_runs_of_different_sweeps_are_refused() -> None:
    with pytest.raises(SystemExit, match="not the same sweep"):
        pool_runs.pooled_rows([run([(65536, 128, [1.0], [1.0])]),
                               run([(65536, 16, [1.0], [1.0])])])


def test_a_missing_or_broken_bench_json_is_named(tmp_path: Path) -> None:
    good, broken = tmp_path / "good", tmp_path / "broken"
    good.mkdir()
    broken.mkdir()
    (good / "bench.json").write_text(json.dumps(run([(65536, 128, [1.0], [1.0])])))
    (broken / "bench.json").write_text("{")
    result = subprocess.run([sys.executable, str(SCRIPT), str(good), str(broken)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and f"{broken / 'bench.json'}:" in result.stderr
    assert "Traceback" not in result.stderr


def test_runs_with_different_row_counts_are_refused() -> None:
    one = run([(65536, 128, [1.0], [1.0])])
    two = run([(65536, 128, [1.0], [1.0]), (65536, 16, [1.0], [1.0])])
    with pytest.raises(SystemExit, match="different numbers of bandwidth rows"):
        pool_runs.pooled_rows([one, two])


def test_a_bench_json_without_pairs_is_named(tmp_path: Path) -> None:
    (tmp_path / "bench.json").write_text(json.dumps(
        {"bandwidth": [{"block_bytes": 65536, "batch_blocks": 128}]}))
    result = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "lacks 'ordered_pairs'" in result.stderr
