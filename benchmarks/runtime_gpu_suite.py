"""Run the whole GPU proof suite and the runtime benchmarks in one go; print a summary last.

    PYTHONPATH=. python3 benchmarks/runtime_gpu_suite.py --out "$OUT"

Writes gpu_proofs.json (figures from tests/gpu), pytest.log, junit.xml, bench.json, bench.png
and environment.json to --out.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def environment() -> dict[str, Any]:
    import importlib.metadata

    import torch

    smi = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
        capture_output=True, text=True, check=False,
    ).stdout.strip()
    return {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "nvidia_smi": smi, "torch": torch.__version__, "torch_cuda": torch.version.cuda,
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
    ordered = [r["ordered_ratio"] for r in rows]
    verified = [r["verified_ratio"] for r in rows]
    big = [r for r in rows if r["block_bytes"] * r["batch_blocks"] >= 16 << 20]
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
    ]
    for kind, result in sorted(get("guard_raise").items() if isinstance(get("guard_raise"), dict)
                               else []):
        lines.append(f"| 3 raise, {kind} | raised {result['raised']}/{result['trials']}, "
                     f"host untouched {result['host_untouched']} |")
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
    ]
    if rows:
        single = [r["ordered_one_per_wakeup_ratio"] for r in rows]
        latency = [r["latency_ratio"] for r in rows]

        def spread(values: list[float]) -> str:
            ordered_values = sorted(values)
            return (f"min {ordered_values[0]:.3f}, median {ordered_values[len(values) // 2]:.3f}, "
                    f"{sum(v >= 0.98 for v in values)}/{len(values)} >= 0.98, "
                    f"{sum(v >= 0.97 for v in values)}/{len(values)} >= 0.97")

        lines += [
            f"| 6 ordered+guarded/raw bandwidth, back to back | {spread(ordered)}, min for "
            f"stores >= 16 MiB {min(r['ordered_ratio'] for r in big):.3f} |",
            f"| 6 same, one request per wake-up | {spread(single)} |",
            f"| 6 1% verified/raw bandwidth | {spread(verified)}, min for stores >= 16 MiB "
            f"{min(r['verified_ratio'] for r in big):.3f} |",
            f"| 6 single-store latency raw/ordered | {spread(latency)} |",
            f"| 6 guard host overhead per store, end to end | pipelined "
            f"{guard['end_to_end_us_per_store_pipelined']:.2f} us, one at a time "
            f"{guard['end_to_end_us_per_store_one_at_a_time']:.2f} us (trace at one store per "
            f"wake-up {guard['trace_us_per_store_one_per_wakeup']:.2f}, check "
            f"{guard['check_us_mean']:.2f}, open_request {guard['open_request_us']:.2f}, mean "
            f"group {guard['mean_group']:.1f}) |",
        ]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, KVGUARD_GPU_RESULTS=str(args.out / "gpu_proofs.json"))
    (args.out / "environment.json").write_text(json.dumps(environment(), indent=2))
    with open(args.out / "pytest.log", "w") as log:
        tests = subprocess.run(
            [sys.executable, "-m", "pytest", "tests/gpu", "-v", "-p", "no:cacheprovider",
             "--timeout=90", f"--junitxml={args.out / 'junit.xml'}"],
            env=env, stdout=log, stderr=subprocess.STDOUT, check=False,
        )
    print((args.out / "pytest.log").read_text()[-3000:], flush=True)
    bench = subprocess.run(
        [sys.executable, "benchmarks/runtime_bench.py", "--out", str(args.out)],
        env=env, check=False,
    )
    proofs_path, bench_path = args.out / "gpu_proofs.json", args.out / "bench.json"
    proofs = json.loads(proofs_path.read_text()) if proofs_path.exists() else {}
    bench_result = json.loads(bench_path.read_text()) if bench_path.exists() else {}
    print(f"\npytest exit {tests.returncode}, benchmark exit {bench.returncode}")
    print("\n".join(summary(proofs, bench_result)))
    return tests.returncode or bench.returncode


if __name__ == "__main__":
    sys.exit(main())
