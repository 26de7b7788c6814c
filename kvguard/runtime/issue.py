"""Issuing a group on the copy thread: the barrier, the guard's check, the driver call(s) and the
completion event; where the group's call fails, the group is issued again so that only the
requests whose own copies fail are refused."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence
from typing import Any

import torch

from kvguard.runtime.batch_copy import BatchCopier, CopyCall, CopyPlan
from kvguard.runtime.errors import GuardViolation
from kvguard.runtime.guard import CopyGuard, CopyRequest
from kvguard.runtime.intake import (
    GroupLimits,
    QueuedCopy,
    barrier_targets,
    blocks_of,
    describe,
    split_candidate,
)
from kvguard.runtime.pool import ReusePool
from kvguard.runtime.refusals import PendingErrors, RefusalReason, Refusals
from kvguard.runtime.verify import BlockSampler, Issued, Sample, samples_of

logger = logging.getLogger("kvguard.runtime")

# The barrier: make `transfer_stream` wait on the compute stream `request` was made behind.
Barrier = Callable[[CopyGuard, torch.cuda.Stream, CopyRequest], None]


def guarded_wait(guard: CopyGuard, transfer_stream: torch.cuda.Stream, request: CopyRequest) -> None:
    """The transfer stream waits, through the guard, on the event the guard recorded on the
    requester's compute stream for `request`: the only barrier the guard takes as evidence."""
    guard.wait(transfer_stream.cuda_stream, request)


def name_refused(error: BaseException, copies: Sequence[QueuedCopy]) -> BaseException:
    """`error`, its message now led by the copies it refused, so that the caller who gets it at
    its next call knows which requests were not copied."""
    prefix = f"kvguard refused {describe(copies)}"
    if len(error.args) == 1 and isinstance(error.args[0], str):
        error.args = (f"{prefix}: {error.args[0]}",)
    elif hasattr(error, "add_note"):  # Python 3.11+
        error.add_note(prefix)
    return error


def _new_event() -> Any:
    return torch.cuda.Event()  # type: ignore[no-untyped-call]


class CompletionEvents:
    """Completion events from a pool, reused once nothing but the pool references them (the
    caller dropped them).

    An event PyTorch has already created (every reused one) is re-recorded with the driver's
    cuEventRecord on raw handles, which skips PyTorch's per-call Python work. Should the driver
    refuse (it never has), PyTorch's record is used from then on (`raw_record` None).
    """

    def __init__(self, raw_record: Callable[[int, int], int] | None) -> None:
        self._pool: ReusePool[Any] = ReusePool(_new_event)
        self.raw_record = raw_record

    @property
    def created(self) -> int:
        return self._pool.created

    def record(self, stream: torch.cuda.Stream) -> Any:
        done = self._pool.take()
        record = self.raw_record
        if record is not None:
            handle = done.cuda_event
            if handle:
                code = record(handle, stream.cuda_stream)
                if code == 0:
                    return done
                self.raw_record = None
                logger.warning("kvguard: cuEventRecord returned %d; using PyTorch's record", code)
        done.record(stream)
        return done


class GroupIssuer:
    """Issues a group of one direction on the copy thread, and says what to report.

    One wait per compute stream (the newest request's event covers the older ones), one read
    of the guard's evidence, one driver call and one completion event shared by the group. A
    lone request larger than `first_group_bytes` to an idle transfer stream goes in two calls,
    the first of `first_group_bytes`, so the GPU starts after the short one.

    Where planning or the driver call fails for a group of several requests, nothing of it was
    copied, and the group is issued again so that only the requests whose own copies fail are
    refused: each request is planned alone (one with a block out of range is refused there),
    the rest go in one call of one plan a request, and a request whose copy the driver names
    (failIdx) is refused and the rest issued once more; where the driver names no copy, each
    request is issued alone. A healthy group pays nothing for this: only the failure path plans
    or calls more than once.
    """

    def __init__(
        self,
        guard: CopyGuard,
        refusals: Refusals,
        errors: PendingErrors,
        completions: CompletionEvents,
        limits: GroupLimits,
        bytes_per_block: int,
        barrier: Barrier,
        copy_call: CopyCall,
        sampler: BlockSampler | None,
        verify_cluster: int,
    ) -> None:
        self._guard = guard
        self._refusals = refusals
        self._errors = errors
        self.completions = completions
        self._limits = limits
        self._bytes_per_block = bytes_per_block
        self._barrier_wait = barrier
        self._copy_call = copy_call
        self._sampler = sampler
        self._verify_cluster = verify_cluster
        # Blocks in the newest group issued, per direction (is_store): the next group's cap
        # grows from it while the transfer stream is busy.
        self.newest_group_blocks = {True: 0, False: 0}

    def issue(self, group: list[QueuedCopy], copier: BatchCopier) -> Issued | None:
        """Issue `group` (one direction, request order) through `copier`; return what was issued
        with its completion event and sampled blocks, or None when nothing was. Refused
        requests are listed; an error is raised after refusing what it kept from being copied
        (others, such as a violation under policy raise, are queued for the caller)."""
        stream = copier.stream
        split_at = self._split_point(group, copier)  # read before the barrier queues its wait
        try:
            self._barrier(group, stream)
        except Exception as exc:  # not copied: never reported, so refused (the error is raised too)
            self._refuse_group(exc, group)
            raise
        finally:  # waited on (or failed): the pool may record them again
            release = self._guard.release
            for copy in group:
                release(copy.request)
        ok = self._check(group, copier)
        if not ok:
            return None
        try:
            src_blocks, dst_blocks = blocks_of(ok)
            samples = self._samples(ok, copier, src_blocks, dst_blocks)
        except Exception as exc:  # nothing was issued: refused (the error is raised too)
            self._refuse_group(exc, ok)
            raise
        plans = None
        try:
            plans = self._plans(ok, copier)
            self._issue_blocks(copier, src_blocks, dst_blocks, plans, split_at)
        except Exception as exc:
            if len(ok) == 1:  # its own copy failed: refused (the error is raised too)
                self._refuse_group(exc, ok)
                raise
            # One request's blocks, or the driver, failed the group's call: only the requests
            # whose own copies fail are refused; the others are issued again.
            requested = len(ok)
            ok = self._isolate(ok, copier, exc, plans)
            if len(ok) == requested:  # the error refused nothing: say that a call failed
                logger.warning(
                    "kvguard: the call for %s failed and went through when issued again: %s",
                    describe(ok),
                    exc,
                )
            if not ok:
                return None
            try:
                src_blocks, dst_blocks = blocks_of(ok)
                samples = self._samples(ok, copier, src_blocks, dst_blocks)
            except Exception as exc:  # refused, and its copies may be in flight: let them land
                with contextlib.suppress(Exception):  # the error above is the one raised
                    stream.synchronize()
                self._refuse_group(exc, ok)
                raise
        try:
            done = self.completions.record(stream)
        except Exception as exc:  # no completion event: refused (the error is raised too)
            self._refuse_group(exc, ok)
            raise
        self.newest_group_blocks[copier.is_store] = len(src_blocks)
        return Issued(ok, done, samples)

    def _refuse_group(self, error: BaseException, copies: Sequence[QueuedCopy]) -> None:
        """Refuse copies kept from the driver (or from being reported) by `error`, which is
        renamed after them and raised by the caller."""
        for copy in copies:
            self._refusals.refuse(copy.request, RefusalReason.COPY_ERROR)
        name_refused(error, copies)

    def _split_point(self, group: list[QueuedCopy], copier: BatchCopier) -> int:
        """Blocks in the first of two driver calls for the group, when it is a lone request
        that the copy thread plans and its transfer stream has nothing queued (the group's
        copies would be its first work); else 0, one call."""
        first = split_candidate(group, self._limits, self._bytes_per_block)
        if not first:
            return 0
        try:
            return first if copier.stream.query() else 0
        except Exception:  # one call, then: a broken stream fails the copy's own call too
            return 0

    def _barrier(self, group: list[QueuedCopy], stream: torch.cuda.Stream) -> None:
        """The transfer stream waits on the guard's newest event per compute stream, and on
        each caller's event as given (once if several requests passed the same one)."""
        wait, guard = self._barrier_wait, self._guard
        if len(group) == 1:
            copy = group[0]
            wait(guard, stream, copy.request)
            if copy.caller_event is not None:
                stream.wait_event(copy.caller_event)
            return
        requests, caller_events = barrier_targets(group)
        for request in requests:
            wait(guard, stream, request)
        for event in caller_events:
            stream.wait_event(event)

    def _check(self, group: list[QueuedCopy], copier: BatchCopier) -> list[QueuedCopy]:
        """The guard, once per request, on one read of the evidence; returns what may copy."""
        guard, transfer = self._guard, copier.stream.cuda_stream
        requests = [copy.request for copy in group]
        if guard.all_ordered(requests, transfer, copier.source_kind, copier.source_order):
            return group  # the common case: the barrier's wait alone proves the group ordered
        kinds = guard.check_group(requests, transfer, copier.source_kind, copier.source_order)
        if all(kind is None for kind in kinds):
            return group
        ok = []
        for copy, kind in zip(group, kinds, strict=True):
            if kind is None:
                ok.append(copy)
                continue
            try:
                verdict = guard.apply_policy(copy.request, transfer, kind)
            except GuardViolation as exc:  # policy raise: this copy never reaches the driver
                self._refusals.refuse(copy.request, RefusalReason.of_violation(kind))
                self._errors.add(exc)
                continue
            if verdict.copy:
                ok.append(copy)
            else:
                self._refusals.refuse(copy.request, RefusalReason.of_violation(kind))
        return ok

    def _samples(
        self, ok: list[QueuedCopy], copier: BatchCopier, src_blocks: Sequence[int], dst_blocks: Sequence[int]
    ) -> list[Sample]:
        """The group's sampled blocks, when it is verified (stores only); else none."""
        sampler = self._sampler
        picked = sampler.sample(len(src_blocks), self._verify_cluster) if sampler and copier.is_store else []
        return samples_of(ok, src_blocks, dst_blocks, picked) if picked else []

    @staticmethod
    def _plans(group: list[QueuedCopy], copier: BatchCopier) -> list[CopyPlan] | None:
        """Each request's plan, made here for any launch_copy did not plan; None when it
        planned none of them (the group's blocks are then planned as one list)."""
        if len(group) == 1:
            plan = group[0].plan
            return None if plan is None else [plan]
        if all(copy.plan is None for copy in group):
            return None
        return [
            copier.plan(copy.request.src_blocks, copy.request.dst_blocks) if copy.plan is None else copy.plan
            for copy in group
        ]

    def _issue_blocks(
        self,
        copier: BatchCopier,
        src_blocks: Sequence[int],
        dst_blocks: Sequence[int],
        plans: list[CopyPlan] | None,
        split_at: int,
    ) -> None:
        """A group's copies: one driver call, or, from `_split_point`, two. The driver takes a
        call's descriptors one by one before its first copy starts (64 KiB x 1,024: 1.2 ms),
        so the GPU then starts after the short call and copies while the rest is handed over."""
        if not split_at:
            self._copy_call(copier, src_blocks, dst_blocks, plans)
            return
        head_src, head_dst = src_blocks[:split_at], dst_blocks[:split_at]
        tail_src, tail_dst = src_blocks[split_at:], dst_blocks[split_at:]
        # Both parts planned before either is issued: a bad block id refuses the group with
        # nothing copied, as with one call.
        head = copier.plan(head_src, head_dst)
        tail = copier.plan(tail_src, tail_dst)
        self._copy_call(copier, head_src, head_dst, [head])
        try:
            self._copy_call(copier, tail_src, tail_dst, [tail])
        except Exception:
            # The group is refused but its head is in flight: it lands before the refusal is
            # seen, so the refused blocks are not written once their owner may reuse them.
            with contextlib.suppress(Exception):  # the failed call's error is the one raised
                copier.stream.synchronize()
            raise

    def _isolate(
        self, group: list[QueuedCopy], copier: BatchCopier, error: BaseException, plans: list[CopyPlan] | None
    ) -> list[QueuedCopy]:
        """After `error` failed the call for a group of several requests (nothing of it was
        copied), issue the group again so that a request is refused only when its own copy
        fails, each with its own error; return the requests issued, in request order.

        `plans`: the failed call's plans, one a request, or None (the group was planned as one
        list, or planning it failed): then each request is planned alone first. The copies
        that went well are issued with the calls of the requests around them, on the same
        stream, before the group's completion event is recorded.
        """
        if plans is None:
            pending = self._plan_each(group, copier)
            retry: BaseException | None = None
        else:
            pending = list(zip(group, plans, strict=True))
            retry = error
        while True:
            planned = [index for index, (_, plan) in enumerate(pending) if plan is not None]
            if not planned:  # nothing left to copy (requests with no blocks are reported)
                return [copy for copy, _ in pending]
            if retry is None:
                try:
                    self._issue_pending(copier, pending)
                    return [copy for copy, _ in pending]
                except Exception as exc:
                    retry = exc
            failing = getattr(retry, "failing_plan", None)
            if len(planned) == 1:
                failing = 0
            if failing is None or not 0 <= failing < len(planned):
                return self._issue_each(copier, pending)  # the driver named no copy
            copy, _ = pending.pop(planned[failing])
            self._refuse_failed(copy, retry)
            retry = None

    def _plan_each(
        self, group: list[QueuedCopy], copier: BatchCopier
    ) -> list[tuple[QueuedCopy, CopyPlan | None]]:
        """Each request's plan (None for one with no blocks); a request the planner rejects is
        refused, with its own error."""
        pending: list[tuple[QueuedCopy, CopyPlan | None]] = []
        for copy in group:
            plan, request = copy.plan, copy.request
            if plan is None and len(request.src_blocks):
                try:
                    plan = copier.plan(request.src_blocks, request.dst_blocks)
                except Exception as exc:
                    self._refuse_failed(copy, exc)
                    continue
            pending.append((copy, plan))
        return pending

    def _issue_pending(self, copier: BatchCopier, pending: list[tuple[QueuedCopy, CopyPlan | None]]) -> None:
        """One driver call for the planned requests of `pending`, one plan a request."""
        copies = [copy for copy, plan in pending if plan is not None]
        src_blocks, dst_blocks = blocks_of(copies)
        self._copy_call(copier, src_blocks, dst_blocks, [plan for _, plan in pending if plan is not None])

    def _issue_each(
        self, copier: BatchCopier, pending: list[tuple[QueuedCopy, CopyPlan | None]]
    ) -> list[QueuedCopy]:
        """Each request in a driver call of its own; one whose call fails is refused."""
        issued = []
        for copy, plan in pending:
            if plan is not None:
                try:
                    self._issue_pending(copier, [(copy, plan)])
                except Exception as exc:
                    self._refuse_failed(copy, exc)
                    continue
            issued.append(copy)
        return issued

    def _refuse_failed(self, copy: QueuedCopy, error: BaseException) -> None:
        """Refuse one request whose own copy failed; `error`, naming it, is raised to the caller."""
        self._refusals.refuse(copy.request, RefusalReason.COPY_ERROR)
        self._errors.add(name_refused(error, [copy]))
