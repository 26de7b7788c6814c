"""Host time of `plan_block_copies`, numpy path against the plain-Python one, for block counts
and tensor counts a store has (vLLM: one tensor per layer); then what joining a request planned
already (by launch_copy, in a burst) into its group's driver call costs the copy thread instead.

CPU only: `python3 benchmarks/planner_speed.py`. Random block ids, none adjacent on both sides.
"""

from __future__ import annotations

import random
import timeit

from kvguard.runtime import batch_copy
from kvguard.runtime.batch_copy import CacheLayout, join_descriptors, plan_block_copies


def layouts(tensors: int) -> tuple[CacheLayout, CacheLayout]:
    names = tuple(f"layer{i}" for i in range(tensors))
    src = CacheLayout(
        names, tuple((1 << 40) + (i << 32) for i in range(tensors)), (16 << 10,) * tensors, (4096,) * tensors
    )
    dst = CacheLayout(
        names, tuple((1 << 44) + (i << 32) for i in range(tensors)), (16 << 10,) * tensors, (2048,) * tensors
    )
    return src, dst


def main() -> None:
    rng = random.Random(0)
    threshold = batch_copy._NUMPY_FROM
    print(f"numpy from (blocks + 2) x tensors >= {threshold}; microseconds per plan")
    print("tensors | blocks | numpy | plain | used")
    for tensors in (1, 2, 32, 64):
        src, dst = layouts(tensors)
        for blocks in (1, 8, 16, 32, 64, 128, 256, 1024):
            src_blocks = rng.sample(range(4096), blocks)
            dst_blocks = rng.sample(range(2048), blocks)
            timings = {}
            for name, cutoff in (("numpy", 1), ("plain", 1 << 62)):
                batch_copy._NUMPY_FROM = cutoff
                runs = max(20, 20_000 // (blocks * tensors))
                seconds = min(
                    timeit.repeat(
                        "plan_block_copies(src, dst, src_blocks, dst_blocks)",
                        number=runs,
                        repeat=5,
                        globals={
                            "plan_block_copies": plan_block_copies,
                            "src": src,
                            "dst": dst,
                            "src_blocks": src_blocks,
                            "dst_blocks": dst_blocks,
                        },
                    )
                )
                timings[name] = seconds / runs * 1e6
            batch_copy._NUMPY_FROM = threshold
            used = "numpy" if (blocks + 2) * tensors >= threshold else "plain"
            print(f"{tensors} | {blocks} | {timings['numpy']:.1f} | {timings['plain']:.1f} | {used}")
    print("joining 8 planned requests into one call: microseconds per request")
    print("descriptors per request | join")
    src, dst = layouts(1)
    for blocks in (1, 64, 128, 1024):
        plans = [
            plan_block_copies(src, dst, rng.sample(range(4096), blocks), rng.sample(range(2048), blocks))
            for _ in range(8)
        ]
        runs = max(20, 20_000 // blocks)
        seconds = min(
            timeit.repeat(
                "join_descriptors(plans)",
                number=runs,
                repeat=5,
                globals={"join_descriptors": join_descriptors, "plans": plans},
            )
        )
        print(f"{blocks} | {seconds / runs / 8 * 1e6:.2f}")


if __name__ == "__main__":
    main()
