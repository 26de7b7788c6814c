"""Pool the paired repeats of several runs of `runtime_gpu_suite.py` on the same code: per
configuration, the median over every run's pairs of the ordered+guarded and 1% verified
ratios to raw, with the per-run medians beside them. One run's median moves with the state
raw's loop happened to be in; the pooled median weighs each run by its repeats.

    python3 benchmarks/pool_runs.py DIR [DIR ...]   (each DIR holds a bench.json)
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

TARGETS = {"ordered": 0.98, "verified": 0.97}


def pooled_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if len({len(run["bandwidth"]) for run in runs}) != 1 or not runs[0]["bandwidth"]:
        raise SystemExit("the runs have different numbers of bandwidth rows (or none): "
                         "not the same sweep")
    rows = []
    for index, first in enumerate(runs[0]["bandwidth"]):
        same = [run["bandwidth"][index] for run in runs]
        shape = (first["block_bytes"], first["batch_blocks"])
        if any((row["block_bytes"], row["batch_blocks"]) != shape for row in same):
            raise SystemExit(f"the runs' bandwidth rows differ at row {index}: not the same sweep")
        row: dict[str, Any] = {"block_bytes": shape[0], "batch_blocks": shape[1]}
        for variant in TARGETS:
            ratios = [pair[0] for run_row in same for pair in run_row[f"{variant}_pairs"]]
            row[f"{variant}_pooled"] = statistics.median(ratios)
            row[f"{variant}_pairs"] = len(ratios)
            row[f"{variant}_per_run"] = [run_row[f"{variant}_ratio"] for run_row in same]
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]], names: list[str]) -> str:
    runs = " / ".join(names)
    lines = [
        f"| block | blocks/store | pairs | ordered/raw pooled | per run ({runs}) | "
        f"1% verified/raw pooled | per run |",
        "| ---: | ---: | ---: | ---: | --- | ---: | --- |",
    ]
    for row in rows:
        cells = [f"{row['block_bytes'] >> 10} KiB", str(row["batch_blocks"]), str(row["ordered_pairs"])]
        for variant, target in TARGETS.items():
            pooled = row[f"{variant}_pooled"]
            mark = "" if pooled >= target else " (below)"
            cells.append(f"{pooled:.4f}x{mark}")
            cells.append(" / ".join(f"{ratio:.3f}" for ratio in row[f"{variant}_per_run"]))
        lines.append("| " + " | ".join(cells) + " |")
    for variant, target in TARGETS.items():
        met = sum(row[f"{variant}_pooled"] >= target for row in rows)
        lowest = min(rows, key=lambda row: row[f"{variant}_pooled"])
        lines.append(
            f"\n{variant}: pooled median >= {target}x on {met} of {len(rows)} rows; lowest "
            f"{lowest[f'{variant}_pooled']:.4f}x ({lowest['block_bytes'] >> 10} KiB x "
            f"{lowest['batch_blocks']})"
        )
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    folders = [Path(arg) for arg in sys.argv[1:]]
    runs = []
    for folder in folders:
        try:
            runs.append(json.loads((folder / "bench.json").read_text()))
        except (OSError, json.JSONDecodeError) as exc:
            raise SystemExit(f"{folder / 'bench.json'}: {exc}") from None
    try:
        rows = pooled_rows(runs)
    except KeyError as exc:
        raise SystemExit(f"a bench.json lacks {exc}: not written by runtime_bench.py") from None
    print(table(rows, [folder.name or "top" for folder in folders]))


if __name__ == "__main__":
    main()
