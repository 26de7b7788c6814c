"""Run the whole GPU proof suite and the runtime benchmarks in one go; print a summary last.

    PYTHONPATH=. python3 benchmarks/runtime_gpu_suite.py --out "$OUT"

Writes gpu_proofs.json (figures from tests/gpu), pytest.log, junit.xml, bench.json, bench.png
and environment.json to --out. The summary ends with the benchmark's table (markdown) and the
wall time of each part.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[1]


def git_head() -> str:
    """The checkout's HEAD, or "unknown" (no git, or not a work tree). A copy of the tree can
    carry an older .git than its files: `code_digest` names the code itself."""
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False, cwd=REPOSITORY
        )
    except OSError:
        return "unknown"
    return result.stdout.strip() if result.returncode == 0 else "unknown"


def code_digest(root: Path) -> str:
    """sha256 over the code a run measures: every file of kvguard/ (the compare kernel's PTX
    too), tests/gpu/ and the two benchmark scripts, path then content, in path order.
    Recompute it on a checkout to see whether that checkout is the code measured."""
    files = [path for path in root.glob("kvguard/**/*") if path.is_file() and "__pycache__" not in path.parts]
    files += [
        *root.glob("tests/gpu/*.py"),
        root / "benchmarks" / "runtime_bench.py",
        root / "benchmarks" / "runtime_gpu_suite.py",
    ]
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def environment() -> dict[str, Any]:
    import importlib.metadata

    import torch

    smi = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": git_head(),
        "code_sha256": code_digest(REPOSITORY),
        "nvidia_smi": smi,
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "cuda_bindings": importlib.metadata.version("cuda-bindings"),
        "python": sys.version.split()[0],
    }


def summary(proofs: dict[str, Any], bench: dict[str, Any]) -> list[str]:
    def get(*keys: str) -> Any:
        value: Any = proofs
        for key in keys:
            value = value.get(key, {}) if isinstance(value, dict) else {}
        return value if value != {} else "missing"

    rows = bench.get("bandwidth", [])
    guard = bench.get("guard", {})
    lines = [
        "| proof | figure |",
        "| --- | --- |",
        f"| 1 race, main thread, no barrier | stale {get('race_main_thread', 'stale')}"
        f"/{get('race_main_thread', 'trials')} |",
        f"| 1 race, copy thread, no barrier | stale {get('race_copy_thread', 'stale')}"
        f"/{get('race_copy_thread', 'trials')} |",
        f"| 2 ordered backend, own event | stale "
        f"{get('ordered_stores', 'backend_records_event', 'stale')}/"
        f"{get('ordered_stores', 'backend_records_event', 'stores')} |",
        f"| 2 ordered backend, caller event | stale "
        f"{get('ordered_stores', 'caller_event', 'stale')}/"
        f"{get('ordered_stores', 'caller_event', 'stores')} |",
        f"| 2 reused completion events | stale {get('completion_event_reuse', 'stale')}/"
        f"{get('completion_event_reuse', 'stores')}, events created "
        f"{get('completion_event_reuse', 'events_created')}, driver record in use "
        f"{get('completion_event_reuse', 'driver_record_in_use')} |",
        f"| 2 stores requested from a thread new to CUDA | stale "
        f"{get('fresh_thread_stores', 'stale')}/{get('fresh_thread_stores', 'trials')}, errors "
        f"{get('fresh_thread_stores', 'errors')} |",
        f"| 2 a burst planned on the requesting thread | stale "
        f"{get('early_planned_burst', 'stale')}/{get('early_planned_burst', 'stores')}, planned "
        f"early {get('early_planned_burst', 'planned_early')} |",
        f"| 2 stores through the vLLM bridge, guard's event alone | stale "
        f"{get('bridge_stores', 'stale')}/{get('bridge_stores', 'trials')} |",
        f"| 2 the guard's handshake across threads | transfer held behind compute "
        f"{get('guard_handshake', 'transfer_held_behind_compute')}, violation "
        f"{get('guard_handshake', 'violation')} |",
        f"| driver cuEventRecord on a PyTorch event | code {get('driver_event_record', 'code')}, "
        f"pending behind a sleep {get('driver_event_record', 'pending_behind_sleep')} |",
    ]
    for kind, result in sorted(get("guard_raise").items() if isinstance(get("guard_raise"), dict) else []):
        lines.append(
            f"| 3 raise, {kind} | raised {result['raised']}/{result['trials']}, "
            f"host untouched {result['host_untouched']} |"
        )
    lines += [
        f"| 3 refuse | completed {get('guard_refuse', 'completion_events')}, refused "
        f"{get('guard_refuse', 'refused')}/{get('guard_refuse', 'trials')} |",
        f"| 3 ordered stores | violations {get('guard_ordered', 'violations')}/"
        f"{get('guard_ordered', 'stores')} |",
        f"| 4 load, unordered | overwritten {get('load_unordered', 'overwritten')}/"
        f"{get('load_unordered', 'trials')} |",
        f"| 4 load, ordered | overwritten {get('load_ordered', 'overwritten')}/"
        f"{get('load_ordered', 'trials')} |",
        f"| 5 verify, corrupt once | mismatches {get('verify_recopy', 'mismatches')}, recopied "
        f"{get('verify_recopy', 'recopied')}, all reported good "
        f"{get('verify_recopy', 'reported_blocks_all_good')} |",
        f"| 5 verify, corrupt always | refused {get('verify_refuse', 'refused')}, reported "
        f"{get('verify_refuse', 'reported')} |",
        f"| 5 verify, 1% sampled | verified {get('verify_sampled_1pct', 'verified')} of "
        f"{get('verify_sampled_1pct', 'blocks')}, mismatches "
        f"{get('verify_sampled_1pct', 'mismatches')} |",
        f"| 5 compare kernel, two changed pairs of 8 | found {get('compare_kernel', 'found')}, "
        f"pairs in several launches {get('compare_kernel', 'pairs_in_several_launches')} |",
    ]
    faults = get("fault_isolation")
    for case, result in sorted(faults.items() if isinstance(faults, dict) else []):
        calls = f", driver calls {result['driver_calls']}" if "driver_calls" in result else ""
        lines.append(
            f"| 7 one bad request in a group, {case} | reported {result['reported']}, "
            f"refused {result['refused']}, neighbours landed "
            f"{result['neighbours_landed']}{calls} |"
        )
    if rows:
        big = [r for r in rows if r["block_bytes"] * r["batch_blocks"] >= 16 << 20]

        def spread(key: str) -> str:
            values = sorted(r[key] for r in rows)
            return (
                f"min {values[0]:.3f}, median {values[len(values) // 2]:.3f}, "
                f"{sum(v >= 0.98 for v in values)}/{len(values)} >= 0.98, "
                f"{sum(v >= 0.97 for v in values)}/{len(values)} >= 0.97"
            )

        def steady_spread(key: str) -> str:
            values = sorted(r[key] for r in rows if r.get(key) is not None)
            if not values:
                return "no row has enough steady pairs"
            return (
                f"{len(values)}/{len(rows)} rows with enough steady pairs: min "
                f"{values[0]:.3f}, {sum(v >= 0.98 for v in values)} >= 0.98, "
                f"{sum(v >= 0.97 for v in values)} >= 0.97"
            )

        def big_min(key: str) -> str:
            return f"{min(r[key] for r in big):.3f}" if big else "n/a"

        state = guard.get("copy_state", {})
        slow_fractions = [round(v, 2) for v in state.get("slow_store_fraction_per_window", [])]
        lines += [
            f"| 6 ordered+guarded/raw bandwidth (median paired), back to back | "
            f"{spread('ordered_ratio')}, min for stores >= 16 MiB {big_min('ordered_ratio')} |",
            f"| 6 1% verified/raw bandwidth (median paired) | {spread('verified_ratio')}, min "
            f"for stores >= 16 MiB {big_min('verified_ratio')} |",
            f"| 6 ordered+guarded/raw, steady pairs only | {steady_spread('ordered_ratio_steady')} |",
            f"| 6 1% verified/raw, steady pairs only | {steady_spread('verified_ratio_steady')} |",
            f"| 6 stock-shaped/raw bandwidth (median paired) | {spread('stock_ratio')} |",
            f"| 6 1% verified/ordered+guarded bandwidth | {spread('verified_vs_ordered')} |",
            f"| 6 ordered+guarded/stock-shaped bandwidth | {spread('ordered_vs_stock')} |",
            f"| 6 single-store latency raw/ordered | {spread('latency_ratio')} |",
            f"| 6 single-store latency stock/ordered | {spread('latency_ordered_vs_stock')} |",
            "| 6 raw window change across a bracket (noise) | median "
            f"{max(r['raw_bracket_change_median'] for r in rows):.1%} at worst, largest "
            f"{max(r['raw_bracket_change_max'] for r in rows):.1%} |",
            f"| 6 copy state, raw 16 KiB x {state.get('batch_blocks', '?')} per store | "
            f"p10/p50/p90 {[round(v) for v in state.get('store_us_p10_p50_p90', [])]} us; "
            f"slow stores per window {slow_fractions}; "
            f"switches {state.get('state_switches_between_consecutive_stores', '?')} of "
            f"{state.get('consecutive_pairs', '?')} consecutive pairs |",
            f"| 6 CPUs | copy work on CPU {guard.get('copy_cpu', '?')}, requesting thread on "
            f"{guard.get('request_cpu', '?')}; {cpu_spread(guard)} |",
            f"| 6 guard host overhead per store, end to end | pipelined "
            f"{guard.get('end_to_end_us_per_store_pipelined', float('nan')):.2f} us, one at a "
            f"time {guard.get('end_to_end_us_per_store_one_at_a_time', float('nan')):.2f} us "
            f"(check {guard.get('check_us_grouped', float('nan')):.2f} grouped / "
            f"{guard.get('check_us_single', float('nan')):.2f} alone; open_request logged / "
            f"discarded {guard.get('open_request_us_logged', float('nan')):.2f} / "
            f"{guard.get('open_request_us_discarded', float('nan')):.2f}, wait + release "
            f"{guard.get('wait_release_us_logged', float('nan')):.2f} / "
            f"{guard.get('wait_release_us_discarded', float('nan')):.2f}; mean group "
            f"{guard.get('mean_group_ordered', float('nan')):.1f}; children on CPUs "
            f"{guard.get('children_cpus', '?')}) |",
            "",
            *table(rows),
        ]
    return lines


def table(rows: list[dict[str, Any]]) -> list[str]:
    """Every configuration: bandwidths, paired ratios with their quartiles, latencies, noise."""
    lines = [
        "| block | blocks/store | raw GB/s | stock-shaped GB/s | ordered+guarded GB/s | 1% verified "
        "GB/s | ordered/raw (quartiles) | verified/raw (quartiles) | stock/raw | "
        "verified/ordered | ordered/raw, verified/raw over steady pairs (pairs) | single store "
        "raw / stock / ordered (us) | mean group | raw change across a bracket, median / max | "
        "verify checks / verify-thread CPU ms |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
        "---: | ---: | ---: |",
    ]

    def steady(r: dict[str, Any], name: str) -> str:
        ratio = r.get(f"{name}_ratio_steady")
        shown = "n/a" if ratio is None else f"{ratio:.3f}x"
        return f"{shown} ({r.get(f'{name}_steady_pairs', 0)})"

    def with_quartiles(r: dict[str, Any], key: str) -> str:
        low, _, high = r[f"{key}_quartiles"]
        return f"{r[key]:.3f}x ({low:.3f} to {high:.3f})"

    for r in rows:
        lines.append(
            f"| {r['block_bytes'] >> 10} KiB | {r['batch_blocks']} | {r['raw_gbps']:.2f} | "
            f"{r['stock_gbps']:.2f} | {r['ordered_gbps']:.2f} | {r['verified_gbps']:.2f} | "
            f"{with_quartiles(r, 'ordered_ratio')} | {with_quartiles(r, 'verified_ratio')} | "
            f"{r['stock_ratio']:.3f}x | {r['verified_vs_ordered']:.3f}x | "
            f"{steady(r, 'ordered')}, {steady(r, 'verified')} | "
            f"{r['latency_raw_us']:.0f} / {r['latency_stock_us']:.0f} / "
            f"{r['latency_ordered_us']:.0f} | {r['mean_group']:.1f} | "
            f"{r['raw_bracket_change_median']:.1%} / {r['raw_bracket_change_max']:.1%} | "
            f"{verify_stats(r)} |"
        )
    return lines


def cpu_spread(guard: dict[str, Any]) -> str:
    """The fastest and slowest CPU by the sweep's loop (its slowest round), in ms."""
    loops = guard.get("cpu_loop_seconds") or {}
    if not loops:
        return "CPU speeds missing"
    worst = sorted((max(seconds) * 1e3, cpu) for cpu, seconds in loops.items())
    return (
        f"loop {worst[0][0]:.1f} ms on CPU {worst[0][1]} to {worst[-1][0]:.1f} ms on CPU "
        f"{worst[-1][1]} (slowest round each)"
    )


def verify_stats(row: dict[str, Any]) -> str:
    stats = row.get("verify_stats") or {}
    if not stats:
        return "missing"
    return f"{stats.get('checks', 0)} / {stats.get('cpu_s', 0.0) * 1e3:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, KVGUARD_GPU_RESULTS=str(args.out / "gpu_proofs.json"))
    (args.out / "environment.json").write_text(json.dumps(environment(), indent=2))
    began = time.perf_counter()
    with open(args.out / "pytest.log", "w") as log:
        tests = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "tests/gpu",
                "-v",
                "-p",
                "no:cacheprovider",
                "--timeout=90",
                f"--junitxml={args.out / 'junit.xml'}",
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            check=False,
        )
    tests_s = time.perf_counter() - began
    print((args.out / "pytest.log").read_text()[-3000:], flush=True)
    mark = time.perf_counter()
    bench = subprocess.run(
        [sys.executable, "benchmarks/runtime_bench.py", "--out", str(args.out)],
        env=env,
        check=False,
    )
    proofs_path, bench_path = args.out / "gpu_proofs.json", args.out / "bench.json"
    proofs = json.loads(proofs_path.read_text()) if proofs_path.exists() else {}
    bench_result = json.loads(bench_path.read_text()) if bench_path.exists() else {}
    bench_s = time.perf_counter() - mark
    print(
        f"\npytest exit {tests.returncode} ({tests_s:.0f} s), benchmark exit "
        f"{bench.returncode} ({bench_s:.0f} s), suite {time.perf_counter() - began:.0f} s"
    )
    print("\n".join(summary(proofs, bench_result)))
    return tests.returncode or bench.returncode


if __name__ == "__main__":
    sys.exit(main())
