"""Proof point 5: verification catches a corrupt host block and never reports it as good."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from gpu_helpers import host_holds, low_priority_stream, make_caches, write_blocks

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend
from kvguard.runtime.batch_copy import CopyPlan, copy_blocks

STORES = 20
SAMPLED_STORES = 2000


class Corrupter:
    """A copy call: after a store's copy, on the same stream, overwrite its first host block
    with garbage.

    Each store copies blocks 4s..4s+3, so its first block is the one divisible by 4; the
    backend may issue several stores in one driver call, so every such block in the call is hit.
    """

    def __init__(
        self, gpu: dict[str, torch.Tensor], cpu: dict[str, torch.Tensor], corrupt_every_time: bool
    ) -> None:
        self.gpu, self.cpu = gpu, cpu
        self.corrupt_every_time = corrupt_every_time
        self.corrupted: set[int] = set()

    def __call__(
        self,
        copier: BatchCopier,
        src_blocks: Sequence[int],
        dst_blocks: Sequence[int],
        plans: list[CopyPlan] | None = None,
    ) -> None:
        copy_blocks(copier, src_blocks, dst_blocks, plans)
        if not copier.is_store:
            return
        for target in dst_blocks:
            if target % 4 or (target in self.corrupted and not self.corrupt_every_time):
                continue
            self.corrupted.add(target)
            with torch.cuda.stream(copier.stream):
                for name in self.cpu:
                    garbage = torch.full_like(self.gpu[name][0], -7)
                    self.cpu[name][target].copy_(garbage, non_blocking=True)


def run(corrupt_every_time: bool, compute_stream: torch.cuda.Stream) -> dict[str, Any]:
    gpu, cpu = make_caches(4 * STORES, 4 * STORES)
    backend = OrderedCopyBackend(
        GuardPolicy.RAISE,
        verify_fraction=1.0,
        verify_seed=0,
        copy_call=Corrupter(gpu, cpu, corrupt_every_time),
    )
    backend.init(gpu, cpu, torch.device("cuda"), low_priority_stream(), low_priority_stream())
    events: list[tuple[int, Any]] = []
    with torch.cuda.stream(compute_stream):
        for store in range(STORES):
            blocks = [4 * store + i for i in range(4)]
            write_blocks(gpu, blocks, store + 1, 1_000_000)
            backend.launch_copy(blocks, blocks, True, store, events)
    backend.drain()
    torch.cuda.synchronize()
    reported = [idx for idx, _ in events]
    good = all(host_holds(cpu, [4 * idx + i for i in range(4)], idx + 1) for idx in reported)
    counters = backend.counters
    refused = backend.refused_copies()
    backend.shutdown()
    return {
        "stores": STORES,
        "reported": len(reported),
        "reported_blocks_all_good": good,
        "refused_events": [copy.event_idx for copy in refused],
        **counters,
    }


def test_corrupt_block_is_recopied_before_it_is_reported(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    result = run(False, compute_stream)
    proof_results["verify_recopy"] = result
    assert result["mismatches"] == result["recopied"] == STORES
    assert result["reported"] == STORES and result["reported_blocks_all_good"]
    assert result["refused_events"] == [] and result["refused"] == 0


def test_block_that_stays_corrupt_is_refused(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    result = run(True, compute_stream)
    proof_results["verify_refuse"] = result
    assert result["reported"] == 0
    assert result["refused_events"] == list(range(STORES))
    assert result["refused"] == result["mismatches"] == STORES


def test_one_percent_sampling_checks_about_one_block_in_a_hundred(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    gpu, cpu = make_caches(4 * SAMPLED_STORES, 4 * SAMPLED_STORES, block_elems=256)
    backend = OrderedCopyBackend(  # blocks picked one by one, so the count is binomial
        GuardPolicy.RAISE, verify_fraction=0.01, verify_seed=1, verify_cluster_bytes=1
    )
    backend.init(gpu, cpu, torch.device("cuda"), low_priority_stream(), low_priority_stream())
    events: list[tuple[int, Any]] = []
    with torch.cuda.stream(compute_stream):
        for store in range(SAMPLED_STORES):
            blocks = [4 * store + i for i in range(4)]
            backend.launch_copy(blocks, blocks, True, store, events)
    backend.drain()
    counters = backend.counters
    backend.shutdown()
    proof_results["verify_sampled_1pct"] = {
        "blocks": 4 * SAMPLED_STORES,
        "verified": counters["verified"],
        "mismatches": counters["mismatches"],
        "reported": len(events),
    }
    assert 40 <= counters["verified"] <= 130  # 80 expected; beyond 4.5 sigma either side
    assert counters["mismatches"] == 0
    assert len(events) == SAMPLED_STORES
