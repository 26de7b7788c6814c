"""Prototype: verification by a compare kernel on the GPU, on a stream of the verify thread,
behind the group's completion event: it reads each sampled block's GPU source and its pinned
host copy in place (unified addresses) and sets a flag per (block, tensor) pair in pinned
memory. No staging copy, no extra device-to-host bytes, nothing added to the stores' calls.
Self-test first (equal, one corrupt byte, unaligned sizes), then paired windows: ordered,
verified (committed staging), kernel.

The kernel is kvguard/runtime/compare.cu as the package ships it (compare.ptx). The probe ran
against commit 2ea32b7 (the runtime of 4f6572e) with the PTX a338672 shipped, built for
compute_80 (the package's targets compute_50 since; the instructions are the same), from a
scratch folder: to rerun it there, check out a338672's kvguard/runtime/compare.ptx as well.
Output in benchmarks/results/probes-h200/kernel_verify.txt.
"""

from __future__ import annotations

import ctypes
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from cuda.bindings import driver as cu
from paired_rows import DEVICE, sweep, verify_figures

from kvguard.runtime import GuardPolicy, OrderedCopyBackend, driver
from kvguard.runtime import backend as bm

PTX = (Path(__file__).resolve().parents[2] / "kvguard" / "runtime" / "compare.ptx").read_bytes() + b"\0"
CHUNK = 16384
MAX_PAIRS = 65535


def ok(result: Any) -> Any:
    err, *rest = result
    assert int(err) == 0, err
    return rest[0] if len(rest) == 1 else rest


class Comparer:
    """The kernel, its pinned pair arrays and flags; one check at a time."""

    def __init__(self) -> None:
        self.module = ok(cu.cuModuleLoadData(PTX))
        self.function = ok(cu.cuModuleGetFunction(self.module, b"kvguard_compare_pairs"))
        self.src = torch.zeros(MAX_PAIRS, dtype=torch.int64).pin_memory()
        self.dst = torch.zeros(MAX_PAIRS, dtype=torch.int64).pin_memory()
        self.size = torch.zeros(MAX_PAIRS, dtype=torch.int64).pin_memory()
        self.flags = torch.zeros(MAX_PAIRS, dtype=torch.int32).pin_memory()
        self.np = [t.numpy() for t in (self.src, self.dst, self.size, self.flags)]
        self.args = [ctypes.c_uint64(t.data_ptr()) for t in (self.src, self.dst, self.size, self.flags)]
        self.params = (ctypes.c_void_p * 4)(*[ctypes.addressof(a) for a in self.args])
        self.pairs = 0

    def enqueue(self, stream: int, src: np.ndarray, dst: np.ndarray, size: np.ndarray) -> None:
        n = len(src)
        assert n <= MAX_PAIRS
        s, d, z, f = self.np
        s[:n], d[:n], z[:n] = src, dst, size
        f[:n] = 0
        self.pairs = n
        grid_x = int((int(size.max()) + CHUNK - 1) // CHUNK)
        ok(cu.cuLaunchKernel(self.function, grid_x, n, 1, 256, 1, 1, 0, stream,
                             ctypes.addressof(self.params), 0))

    def differing(self) -> np.ndarray:
        return np.flatnonzero(self.np[3][: self.pairs])


class KernelVerified(OrderedCopyBackend):
    def _init_verification(self) -> None:
        super()._init_verification()
        self._compare_stream = torch.cuda.Stream(self._device)
        self._comparer: Comparer | None = None
        self._gpu_bases = np.array(self._gpu_layout.base_addresses, dtype=np.int64)[:, None]
        self._cpu_bases = np.array(self._cpu_layout.base_addresses, dtype=np.int64)[:, None]
        self._sizes = np.array(self._gpu_layout.block_bytes, dtype=np.int64)[:, None]
        self._done_compare = 0

    def _issue(self, group: list[Any]) -> None:
        is_store = group[0].request.is_store
        copier = self._store_copier if is_store else self._load_copier
        stream = copier.stream
        split_at = self._split_point(group, copier)
        try:
            self._barrier(group, stream)
        finally:
            for copy in group:
                self._guard.release(copy.request)
        ok_ = self._check(group, copier)
        if not ok_:
            return
        src_blocks, dst_blocks = bm._blocks_of(ok_)
        sampler = self._sampler
        picked = (sampler.sample(len(src_blocks), self._verify_cluster)
                  if sampler and copier.is_store else [])
        rows = bm._rows_of(ok_, src_blocks, dst_blocks, picked) if picked else []
        self._issue_blocks(copier, src_blocks, dst_blocks, self._plans(ok_, copier), split_at)
        done = self._done_events.take()
        self._record_done(done, stream)
        self._newest_group_blocks[is_store] = len(src_blocks)
        if rows:
            self._hand_off(bm._Issued(ok_, done, rows, 0, 0, None))
        else:
            self._report_or_hand_off(ok_, done)

    def _conclude(self, issued: Any) -> None:
        if issued.rows:
            self.verify_stats["checks"] += 1
            if self._comparer is None:
                self._comparer = Comparer()
                code, self._done_compare = self._event_calls.create()
                driver.check(code, "create")
            rows = issued.rows
            src = np.fromiter((r.src for r in rows), np.int64, len(rows))
            dst = np.fromiter((r.dst for r in rows), np.int64, len(rows))
            stream = self._compare_stream.cuda_stream
            driver.check(self._event_calls.wait(stream, issued.done.cuda_event), "wait")
            self._comparer.enqueue(
                stream, (self._gpu_bases + src * self._sizes).ravel(),
                (self._cpu_bases + dst * self._sizes).ravel(),
                np.broadcast_to(self._sizes, (len(self._sizes), len(rows))).ravel())
            driver.check(self._event_calls.record(self._done_compare, stream), "record")
            self._wait_for(self._done_compare)
            bad = self._comparer.differing()
            self._guard.counters.add("verified", len(rows))
            if len(bad):
                self._guard.counters.add("mismatches", len(bad))
        for copy in issued.copies:
            copy.events_list.append((copy.request.event_idx, issued.done))


def self_test() -> None:
    torch.cuda.set_device(DEVICE)
    comparer = Comparer()
    stream = torch.cuda.Stream()
    for block in (65536, 1000, 3 << 20):
        gpu = torch.randint(0, 256, (8, block), dtype=torch.uint8, device=DEVICE)
        host = gpu.cpu().pin_memory()
        ptr = ok(cu.cuPointerGetAttribute(
            cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_POINTER, host.data_ptr()))
        idx = np.arange(8, dtype=np.int64)
        src = gpu.data_ptr() + idx * block
        dst = host.data_ptr() + idx * block
        size = np.full(8, block, dtype=np.int64)
        comparer.enqueue(stream.cuda_stream, src, dst, size)
        stream.synchronize()
        clean = comparer.differing().tolist()
        host[3, block - 1] ^= 1
        host[6, 0] ^= 0x80
        comparer.enqueue(stream.cuda_stream, src, dst, size)
        stream.synchronize()
        dirty = comparer.differing().tolist()
        print(f"self-test block {block}: device pointer == host pointer {int(ptr) == host.data_ptr()}, "
              f"clean {clean}, corrupt 3 and 6 -> {dirty}", flush=True)
        assert clean == [] and dirty == [3, 6]
    start = time.perf_counter()
    for _ in range(20):
        comparer.enqueue(stream.cuda_stream, src, dst, size)
    stream.synchronize()
    print(f"self-test: 20 launches of 8 x 3 MiB in {(time.perf_counter() - start) * 1e3:.2f} ms", flush=True)


KINDS = {"ordered": OrderedCopyBackend, "verified": OrderedCopyBackend, "kernel": KernelVerified}
NAMES = list(KINDS)
ROWS = ((64 << 10, 128), (64 << 10, 1024), (256 << 10, 128), (1 << 20, 128), (2 << 20, 16),
        (256 << 10, 16), (16 << 10, 1024), (16 << 10, 128), (256 << 10, 1))


def make(name: str) -> OrderedCopyBackend:
    return KINDS[name](GuardPolicy.RAISE, verify_fraction=0.0 if name == "ordered" else 0.01,
                       verify_seed=0)


def main() -> None:
    self_test()
    sweep(ROWS, NAMES, make, repeats=10, note=lambda row: verify_figures(
        row, NAMES[1:], "checks/verified/cpu/mismatches"))


if __name__ == "__main__":
    main()
