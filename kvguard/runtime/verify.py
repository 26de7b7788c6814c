"""Sampled verification of stored blocks: which blocks to check, the pairs of memory ranges whose
compare checks them, and the verify thread, which compares them on the GPU (compare.py) once a
store's copies are done and reports each group, in request order, only when it holds."""

from __future__ import annotations

import bisect
import contextlib
import itertools
import logging
import math
import queue
import random
import threading
import time
from array import array
from collections.abc import Sequence
from typing import Any, NamedTuple

import torch

from kvguard.runtime import driver
from kvguard.runtime.batch_copy import BatchCopier, CopyCall
from kvguard.runtime.compare import PairComparer
from kvguard.runtime.counters import RuntimeCounters
from kvguard.runtime.errors import CudaDriverError
from kvguard.runtime.intake import Drain, QueuedCopy
from kvguard.runtime.refusals import PendingErrors, RefusalReason, Refusals

logger = logging.getLogger("kvguard.runtime")

_POLL_S = 100e-6  # the verify thread's sleep between asks whether a check's verdicts are in


class BlockSampler:
    """Picks blocks for verification so that each one is picked with probability `fraction`.

    Picks come in clusters of about `cluster` blocks: a batch of n blocks is checked at all
    with probability p = min(1, max(fraction, fraction * n / cluster)), and then each of its
    blocks with probability fraction / p (gaps between picks are geometric: O(picked) per
    batch). A check costs the verify thread and the copy thread a fixed host time however few
    blocks it compares, so clusters keep the checks few when blocks are small; with
    `cluster` 1 every batch of 1 / fraction blocks or more is checked.
    """

    def __init__(self, fraction: float, seed: int | None = None) -> None:
        if not 0.0 < fraction <= 1.0:
            raise ValueError(f"verification fraction must be in (0, 1], got {fraction}")
        self.fraction = fraction
        self._random = random.Random(seed)

    def sample(self, num_blocks: int, cluster: int = 1) -> list[int]:
        """Indices in [0, num_blocks) picked for verification, ascending."""
        fraction = self.fraction
        checked = min(1.0, max(fraction, fraction * num_blocks / max(1, cluster)))
        if not num_blocks or (checked < 1.0 and self._random.random() >= checked):
            return []
        rate = fraction / checked
        if rate >= 1.0:
            return list(range(num_blocks))
        log_miss = math.log1p(-rate)
        uniform = self._random.random
        picked = []
        position = int(math.log(1.0 - uniform()) / log_miss)
        while position < num_blocks:
            picked.append(position)
            position += 1 + int(math.log(1.0 - uniform()) / log_miss)
        return picked


def plan_pairs(
    src_bases: Sequence[int],
    dst_bases: Sequence[int],
    block_bytes: Sequence[int],
    src_blocks: Sequence[int],
    dst_blocks: Sequence[int],
) -> tuple[array[int], array[int], array[int]]:
    """The pairs (srcs, dsts, sizes) comparing block `src_blocks[i]` of every tensor with block
    `dst_blocks[i]` of the same tensor, tensor-major: pair `t * len(src_blocks) + i` is tensor
    t's block of sample i.

    Tensor t's block b starts at `src_bases[t] + b * block_bytes[t]` on one side and at
    `dst_bases[t] + b * block_bytes[t]` on the other.
    """
    srcs, dsts, sizes = array("q"), array("q"), array("q")
    for src_base, dst_base, size in zip(src_bases, dst_bases, block_bytes, strict=True):
        srcs.extend([src_base + b * size for b in src_blocks])
        dsts.extend([dst_base + b * size for b in dst_blocks])
        sizes.extend([size] * len(src_blocks))
    return srcs, dsts, sizes


class Sample(NamedTuple):
    """One sampled block: the position of its copy in the group, its source and destination."""

    position: int
    src: int
    dst: int


class Issued(NamedTuple):
    """Copies issued together, their shared completion event, and their sampled blocks (none:
    nothing to verify)."""

    copies: list[QueuedCopy]
    done: Any  # torch.cuda.Event
    samples: list[Sample]


_new_tuple = tuple.__new__  # a named tuple's __new__ without its Python frame


def samples_of(
    copies: Sequence[QueuedCopy], src_blocks: Sequence[int], dst_blocks: Sequence[int], picked: list[int]
) -> list[Sample]:
    """The sampled blocks (indices `picked` of the group's blocks) with their copy's position."""
    if len(copies) == 1:
        return [_new_tuple(Sample, (0, src_blocks[i], dst_blocks[i])) for i in picked]
    ends = list(itertools.accumulate(len(copy.request.src_blocks) for copy in copies))
    return [_new_tuple(Sample, (bisect.bisect_right(ends, i), src_blocks[i], dst_blocks[i])) for i in picked]


def report(issued: Issued) -> None:
    """Hand each copy's completion event to its caller, in request order."""
    for copy in issued.copies:
        copy.events_list.append((copy.request.event_idx, issued.done))


class Verifier:
    """The verify thread: compares sampled groups on the GPU once their copies are done, re-copies
    what differs behind a device synchronize, and reports each group it was handed (sampled or
    queued behind one that is), in the order handed.

    The compare kernel reads each sampled block's GPU source (held by the scheduler until the
    store is reported) and its stored host copy in place, on a stream of the verify thread that
    waits for the group's completion event; the stores' own calls carry nothing for it. The
    host caches must be pinned memory the GPU can address.
    """

    def __init__(
        self,
        store_copier: BatchCopier,
        host_caches_pinned: bool,
        device: torch.device,
        event_calls: driver.EventCalls,
        counters: RuntimeCounters,
        refusals: Refusals,
        errors: PendingErrors,
        copy_call: CopyCall,
    ) -> None:
        self._copier = store_copier
        self._pinned = host_caches_pinned
        self._device = device
        self._calls = event_calls
        self._counters = counters
        self._refusals = refusals
        self._errors = errors
        self._copy_call = copy_call
        self._gpu_layout = store_copier.src_layout
        try:  # the kernel reads the host copies where they are
            self._host_bases = tuple(
                driver.device_address(base) for base in store_copier.dst_layout.base_addresses
            )
        except CudaDriverError as exc:
            raise ValueError(
                "verification compares the stored host blocks in place on the GPU, so cpu_caches "
                "must be pinned memory the GPU can address (tensor.pin_memory(), or "
                f"cudaHostRegister); the driver said: {exc}"
            ) from exc
        self.compare_stream = torch.cuda.Stream(device)  # type: ignore[no-untyped-call]
        self._reports: queue.SimpleQueue[Issued | Drain | None] = queue.SimpleQueue()
        self._comparer: PairComparer | None = None
        self._compared = 0  # raw event behind each check's compare, made by the verify thread
        self.handed_off = 0  # groups handed to this thread (written by the copy thread)
        self._reported = 0  # of those, reported or refused (written by this thread)
        # This thread's own figures (read them after drain()): groups checked, its CPU seconds.
        self.stats = {"checks": 0, "cpu_s": 0.0}
        self.thread = threading.Thread(target=self._run, name="kvguard-verify", daemon=True)

    # Called by the copy thread.

    def report_or_hand_off(self, issued: Issued) -> None:
        """Verify a sampled group before it is reported; report one with no sampled block at
        once, unless an earlier report is still being verified: it then goes behind that one,
        to keep reports in request order."""
        if not issued.samples and self.handed_off == self._reported:
            report(issued)
            return
        self.handed_off += 1
        self._reports.put(issued)

    def pass_on(self, marker: Drain) -> None:
        """`marker` is reached once everything handed off before it was reported."""
        self._reports.put(marker)

    def finish(self) -> None:
        """Nothing more comes: the thread ends after what was handed off."""
        self._reports.put(None)

    # The verify thread.

    def _run(self) -> None:
        try:
            self._start_comparing()
        except Exception as exc:  # raised to the caller; every sampled group is refused
            self._errors.add(exc)
            logger.error("kvguard: verification could not start (%s); sampled stores will be refused", exc)
        try:
            self._loop()
        finally:
            self._stop_comparing()

    def _start_comparing(self) -> None:
        """The compare kernel and its event, made in the device's context, made current on
        this thread first (a thread new to CUDA may have none)."""
        torch.cuda.set_device(self._device)
        calls = self._calls
        driver.check(
            calls.bind(self.compare_stream.cuda_stream), "cuCtxSetCurrent (the verify thread's context)"
        )
        code, self._compared = calls.create()
        driver.check(code, "cuEventCreate (verification's compare event)")
        self._comparer = PairComparer(driver.resolve_kernel_calls(), pinned=self._pinned)

    def _stop_comparing(self) -> None:
        """Unload the kernel and destroy its event as the thread ends; a failure is logged
        (shutdown goes on)."""
        try:
            if self._comparer is not None:
                self._comparer.close()
            if self._compared:
                driver.check(
                    self._calls.destroy(self._compared), "cuEventDestroy (verification's compare event)"
                )
        except Exception as exc:
            logger.warning("kvguard: releasing verification's kernel and event failed: %s", exc)
        self._comparer, self._compared = None, 0

    def _loop(self) -> None:
        """Verify and report handed-off groups, one at a time, in request order."""
        reports = self._reports
        while True:
            item = reports.get()
            if item is None:  # shutdown: nothing comes after it
                return
            if isinstance(item, Drain):
                item.reached.set()
                continue
            began = time.thread_time()
            try:
                self._conclude(item)
            except Exception as exc:  # surfaced to the caller on its next call
                self._errors.add(exc)
            finally:
                self._reported += 1
            self.stats["cpu_s"] += time.thread_time() - began
            del item  # let go of its completion event, so that the pool may reuse it

    def _conclude(self, issued: Issued) -> None:
        """Once the group's copies are done, compare its sampled blocks with their GPU sources
        on the GPU, re-copy mismatches once, then report what holds. Without a compare kernel
        (it failed to start) a sampled group is refused, never reported unverified."""
        refused: set[int] = set()
        if issued.samples:
            if self._comparer is None:
                self._refuse_all(issued.copies, RefusalReason.VERIFICATION_ERROR)
                return
            self.stats["checks"] += 1
            try:
                samples = issued.samples
                bad = self._differing(samples, after=issued.done.cuda_event)
                self._counters.add("verified", len(samples))
                if bad:
                    refused = self._recopy(issued, [samples[i] for i in bad])
            except Exception:  # never report what could not be verified
                self._refuse_all(issued.copies, RefusalReason.VERIFICATION_ERROR)
                raise
        for position, copy in enumerate(issued.copies):
            if refused and position in refused:
                self._refusals.refuse(copy.request, RefusalReason.VERIFICATION_MISMATCH)
            else:
                copy.events_list.append((copy.request.event_idx, issued.done))

    def _refuse_all(self, copies: list[QueuedCopy], reason: RefusalReason) -> None:
        for copy in copies:
            self._refusals.refuse(copy.request, reason)

    def _differing(self, samples: list[Sample], after: int) -> list[int]:
        """Positions i whose host block `samples[i].dst` differs from GPU block
        `samples[i].src` in any tensor, compared on the verification stream once event `after`
        has completed (0: at once, the host having synchronized with the copies)."""
        calls, comparer = self._calls, self._comparer
        assert comparer is not None
        stream = self.compare_stream.cuda_stream
        if after:
            driver.check(calls.wait(stream, after), "cuStreamWaitEvent (verification's compare)")
        try:
            comparer.enqueue(
                stream,
                *plan_pairs(
                    self._gpu_layout.base_addresses,
                    self._host_bases,
                    self._gpu_layout.block_bytes,
                    [sample.src for sample in samples],
                    [sample.dst for sample in samples],
                ),
            )
            driver.check(calls.record(self._compared, stream), "cuEventRecord (verification's compare event)")
            self._wait_for(self._compared)
        except Exception:
            # A launch may be queued: the next check reuses the arrays it reads, so let it end.
            with contextlib.suppress(Exception):  # the call's own error is the one raised
                self.compare_stream.synchronize()
            raise
        return sorted({pair % len(samples) for pair in comparer.differing()})

    def _wait_for(self, event: int) -> None:
        """Sleep until `event` has completed, asking the driver between short sleeps.

        Polled rather than synchronized on: a spinning synchronize keeps a core and the driver
        busy while the copy thread calls it, and a blocking-sync event was no better on small
        blocks (docs/decisions.md).
        """
        calls = self._calls
        code = calls.query(event)
        while code == driver.NOT_READY:
            time.sleep(_POLL_S)
            code = calls.query(event)
        driver.check(code, "cuEventQuery (verification's compare event)")

    def _recopy(self, issued: Issued, bad: list[Sample]) -> set[int]:
        """Re-copy differing blocks behind a device synchronize and compare them again; the
        positions of copies whose blocks still differ."""
        self._counters.add("mismatches", len(bad))
        bad_src, bad_dst = [sample.src for sample in bad], [sample.dst for sample in bad]
        logger.warning(
            "kvguard: %s: %d verified blocks differ from their GPU source (source blocks %s); "
            "re-copying them behind a device synchronize",
            issued.copies[bad[0].position].request.describe(),
            len(bad),
            bad_src[:8],
        )
        # A host-blocking device synchronize orders the re-copy after every stream's writes.
        torch.cuda.synchronize(self._device)
        copier = self._copier
        self._copy_call(copier, bad_src, bad_dst, None)
        copier.stream.synchronize()
        self._counters.add("recopied", len(bad))
        return {bad[i].position for i in self._differing(bad, after=0)}
