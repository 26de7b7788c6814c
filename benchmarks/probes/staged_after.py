"""Prototype: verification staged by the verify thread on a stream of its own, after the
group's completion event, instead of in the group's own driver call on the copy thread; and
optionally the compare in a few numpy calls instead of a memcmp per block and tensor.

Paired, pinned as the sweep, 10 repeats: ordered, verified (committed), staged_after,
staged_after_np.

Ran against commit 4f6572e; output in benchmarks/results/probes-h200/staged_after.txt.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import torch
from paired_rows import sweep, verify_figures

from kvguard.runtime import GuardPolicy, OrderedCopyBackend, driver
from kvguard.runtime import backend as bm
from kvguard.runtime.batch_copy import BatchCopier


class StagedAfter(OrderedCopyBackend):
    use_numpy = False

    def _init_verification(self) -> None:
        super()._init_verification()
        self._stage_copier = BatchCopier(self._gpu_caches, self._cpu_caches,
                                         torch.cuda.Stream(self._device))
        self._np_ring: Any = None
        self._np_host = []
        for base, size, count in zip(self._cpu_layout.base_addresses, self._cpu_layout.block_bytes,
                                     self._cpu_layout.num_blocks, strict=True):
            buf = (ctypes.c_uint8 * (size * count)).from_address(base)
            self._np_host.append(np.frombuffer(buf, dtype=np.uint8).reshape(count, size))

    def _issue(self, group: list[Any]) -> None:
        is_store = group[0].request.is_store
        copier = self._store_copier if is_store else self._load_copier
        assert copier is not None
        stream = copier.stream
        split_at = self._split_point(group, copier)
        try:
            self._barrier(group, stream)
        except Exception:
            self._refuse_all(group, "copy_error")
            raise
        finally:
            release = self._guard.release
            for copy in group:
                release(copy.request)
        ok = self._check(group, copier)
        if not ok:
            return
        try:
            src_blocks, dst_blocks = bm._blocks_of(ok)
            sampler = self._sampler
            picked = (sampler.sample(len(src_blocks), self._verify_cluster)
                      if sampler and copier.is_store else [])
            rows = bm._rows_of(ok, src_blocks, dst_blocks, picked) if picked else []
        except Exception:
            self._refuse_all(ok, "copy_error")
            raise
        try:
            self._issue_blocks(copier, src_blocks, dst_blocks, self._plans(ok, copier), split_at)
            done = self._done_events.take()
            self._record_done(done, stream)
        except Exception:
            self._refuse_all(ok, "copy_error")
            raise
        self._newest_group_blocks[is_store] = len(src_blocks)
        if rows:
            self._hand_off(bm._Issued(ok, done, rows, 0, 0, None))
        else:
            self._report_or_hand_off(ok, done)

    def _conclude(self, issued: Any) -> None:
        if not issued.rows:
            for copy in issued.copies:
                copy.events_list.append((copy.request.event_idx, issued.done))
            return
        self.verify_stats["checks"] += 1
        calls = self._event_calls
        ring = self._staging_ring
        rows = issued.rows
        start = ring.take(len(rows))
        refused: set[int] = set()
        try:
            stage_stream = self._stage_copier.stream.cuda_stream
            driver.check(calls.wait(stage_stream, issued.done.cuda_event), "wait")
            self._stage_copier.copy_planned(
                [], self._staging_descriptors([row.src for row in rows], start), "staging")
            if not getattr(self, "_staged_event", 0):
                code, self._staged_event = calls.create()
                driver.check(code, "create")
                self._staged_made.append(self._staged_event)
            driver.check(calls.record(self._staged_event, stage_stream), "record")
            self._wait_for(self._staged_event)
            dst = [row.dst for row in rows]
            bad = self._np_differing(start, dst) if self.use_numpy else self._differing(start, dst)
            self._guard.counters.add("verified", len(rows))
            if bad:
                refused = self._recopy(issued, [rows[i] for i in bad])
        except Exception:
            self._refuse_all(issued.copies, "verification_error")
            raise
        finally:
            ring.give_back()
        for position, copy in enumerate(issued.copies):
            if refused and position in refused:
                self._refuse(copy.request, "verification_mismatch")
            else:
                copy.events_list.append((copy.request.event_idx, issued.done))

    def _np_differing(self, start: int, dst: list[int]) -> list[int]:
        ring = self._staging_ring
        if self._np_ring is None or self._np_ring[0] != ring.address(0):
            total = ring.rows * self._row_bytes
            buf = (ctypes.c_uint8 * total).from_address(ring.address(0))
            self._np_ring = (ring.address(0),
                             np.frombuffer(buf, dtype=np.uint8).reshape(ring.rows, self._row_bytes))
        staged = self._np_ring[1][start:start + len(dst)]
        index = np.fromiter(dst, np.int64, len(dst))
        for host, offset, size in zip(self._np_host, self._offsets, self._cpu_layout.block_bytes,
                                      strict=True):
            if not np.array_equal(staged[:, offset:offset + size], host[index]):
                return self._differing(start, dst)
        return []


class StagedAfterNp(StagedAfter):
    use_numpy = True


KINDS = {"ordered": OrderedCopyBackend, "verified": OrderedCopyBackend,
         "staged_after": StagedAfter, "staged_after_np": StagedAfterNp}
NAMES = list(KINDS)
ROWS = ((64 << 10, 128), (64 << 10, 1024), (16 << 10, 1024), (256 << 10, 128), (1 << 20, 128),
        (256 << 10, 16), (2 << 20, 16), (16 << 10, 128))


def make(name: str) -> OrderedCopyBackend:
    return KINDS[name](GuardPolicy.RAISE, verify_fraction=0.0 if name == "ordered" else 0.01,
                       verify_seed=0)


def main() -> None:
    sweep(ROWS, NAMES, make, repeats=10, note=lambda row: verify_figures(row, NAMES[1:]))


if __name__ == "__main__":
    main()
