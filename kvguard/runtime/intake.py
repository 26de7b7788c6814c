"""Request intake and grouping, as pure functions: what a queued copy holds, when `launch_copy`
hands the GIL to the copy thread or plans a request itself, and how the copy thread gathers
queued copies into one group. No thread and no CUDA call here: the backend feeds these its
queue and its streams' state.

The figures behind each limit are in docs/decisions.md.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from kvguard.runtime.batch_copy import CopyPlan
from kvguard.runtime.guard import CopyRequest, first_of

EventsList = list[tuple[int, Any]]

# A request with this many descriptors (blocks times tensors) or more, made while others wait in
# the queue, is planned by launch_copy: planning it costs the copy thread more than joining its
# descriptors to the group's does (benchmarks/planner_speed.py).
PLAN_EARLY_FROM = 64


class QueuedCopy(NamedTuple):
    """A request as queued for the copy thread."""

    request: CopyRequest  # carries the guard's compute-done event
    caller_event: Any  # the caller's wait_event (torch.cuda.Event or torch.Event), or None
    events_list: EventsList  # where its completion event is reported
    plan: CopyPlan | None  # descriptors made on the requesting thread, or None (made later)


@dataclass(frozen=True)
class Drain:
    """A marker queued behind the copies: `reached` is set once they were all reported."""

    reached: threading.Event


@dataclass(frozen=True)
class GroupLimits:
    """How requests are grouped and when the requesting thread gives way to the copy thread."""

    max_group: int = 256  # requests per copy-thread wake-up; 1 issues each request on its own
    max_group_blocks: int = 1024  # merge requests only while a group holds fewer blocks
    # Bytes a group issued to an idle transfer stream may hold: the driver takes a call's
    # descriptors one by one before its first copy starts, so a short first call gets a
    # burst's copies going while the next group is planned. Small blocks are never capped by
    # it (their groups are bound by host time, which small groups would only add to).
    first_group_bytes: int = 16 << 20
    # Requests queued and not yet taken at which launch_copy lets the copy thread run, once
    # they hold `handover_bytes` too: a hand-over costs the requesting thread about 100 µs, in
    # which the GPU copies about 5 MiB, so a smaller backlog waits for more requests.
    handover_backlog: int = 16
    handover_bytes: int = 8 << 20
    # ... or once three or more wait holding this many (about 1.2 ms of copying): otherwise a
    # burst of a few large stores starts copying only when its launches end. Three, not two:
    # vLLM's worker launches a load and a store back to back each step, and its thread should
    # not sleep for them.
    handover_burst_bytes: int = 64 << 20
    # Blocks (per tensor) below this size are copied at the pace the driver takes descriptors
    # (0.4 to 0.8 µs of host time each; the copy engine moves 32 KiB in about 0.6 µs), so
    # launch_copy plans a burst's requests for the copy thread.
    plan_early_below: int = 32 << 10


def hands_over(limits: GroupLimits, waiting_bytes: int, backlog: int) -> bool:
    """Whether launch_copy should give the copy thread the GIL, with `backlog` requests holding
    `waiting_bytes` queued and not yet taken."""
    return (waiting_bytes >= limits.handover_bytes and backlog >= limits.handover_backlog) or (
        waiting_bytes >= limits.handover_burst_bytes and backlog >= 3
    )


def plans_early(host_bound: bool, descriptors: int, others_queued: bool) -> bool:
    """Whether launch_copy plans a request itself: its blocks are small enough that the copy
    thread, not the GPU, bounds a burst, it is large enough to be worth it, and the copy thread
    is behind (a request launched to an empty queue is planned there, off the caller's thread)."""
    return host_bound and descriptors >= PLAN_EARLY_FROM and others_queued


def group_block_cap(
    limits: GroupLimits, bytes_per_block: int, stream_idle: bool, newest_group_blocks: int
) -> int:
    """Blocks the next group of a direction may hold: `first_group_bytes` worth when its
    transfer stream is idle (all work queued on it has completed), else twice the newest
    group's, up to `max_group_blocks`."""
    block_limit = max(1, limits.max_group_blocks)
    first = min(max(1, limits.first_group_bytes // bytes_per_block), block_limit)
    return first if stream_idle else min(block_limit, max(first, 2 * newest_group_blocks))


class Gathered(NamedTuple):
    group: list[QueuedCopy]
    blocks: int  # in the group
    carried: bool  # whether an item was taken from the queue that is not in the group
    next_item: QueuedCopy | Drain | None  # that item (None also when there is none)


def gather_group(
    first: QueuedCopy,
    queued: Callable[[], bool],
    take: Callable[[], QueuedCopy | Drain | None],
    limits: GroupLimits,
    block_cap: Callable[[], int],
) -> Gathered:
    """`first` and the requests queued behind it that join its group: same direction, while the
    group holds fewer than `block_cap()` blocks and `max_group` requests. `queued` says whether
    an item waits and `take` takes it (one consumer: an item said to wait is there to take).

    The first item taken that does not join (a marker, the other direction, a request past the
    cap) starts the next round and is returned. `block_cap` is read only when a request waits
    to join: it asks the driver about the stream (3.5 to 15.5 µs for a lone group).
    """
    limit, block_limit = max(1, limits.max_group), max(1, limits.max_group_blocks)
    group = [first]
    is_store = first.request.is_store
    blocks = len(first.request.src_blocks)
    cap = block_cap() if blocks < block_limit and limit > 1 and queued() else 0
    while blocks < cap and len(group) < limit and queued():
        item = take()
        if (
            isinstance(item, QueuedCopy)
            and item.request.is_store is is_store
            and blocks + len(item.request.src_blocks) <= cap
        ):
            group.append(item)
            blocks += len(item.request.src_blocks)
        else:
            return Gathered(group, blocks, True, item)
    return Gathered(group, blocks, False, None)


def split_candidate(group: Sequence[QueuedCopy], limits: GroupLimits, bytes_per_block: int) -> int:
    """Blocks in the first of two driver calls for a lone request larger than
    `first_group_bytes` that the copy thread plans itself; 0 for one call. The split is made
    only if its transfer stream is idle too (the caller asks)."""
    if len(group) != 1 or group[0].plan is not None:
        return 0
    first = limits.first_group_bytes // bytes_per_block
    return first if 0 < first < len(group[0].request.src_blocks) else 0


def blocks_of(copies: Sequence[QueuedCopy]) -> tuple[Sequence[int], Sequence[int]]:
    """The source and destination blocks of a group's copies, in order."""
    if len(copies) == 1:
        return copies[0].request.src_blocks, copies[0].request.dst_blocks
    chain = itertools.chain.from_iterable
    return (
        list(chain([copy.request.src_blocks for copy in copies])),
        list(chain([copy.request.dst_blocks for copy in copies])),
    )


def barrier_targets(group: Sequence[QueuedCopy]) -> tuple[list[CopyRequest], list[Any]]:
    """What a group's transfer stream waits on: the newest request per compute stream (its
    event, recorded after the others', covers them) and each caller event once."""
    newest: dict[int, CopyRequest] = {}
    caller_events: dict[int, Any] = {}
    for copy in group:
        request = copy.request
        known = newest.get(request.compute_stream)
        if known is None or request.seq > known.seq:  # queue order may differ across threads
            newest[request.compute_stream] = request
        if copy.caller_event is not None:
            caller_events[id(copy.caller_event)] = copy.caller_event
    return list(newest.values()), list(caller_events.values())


def describe(copies: Sequence[QueuedCopy]) -> str:
    """One request's direction, event index and blocks; several requests' direction and event
    indices."""
    if len(copies) == 1:
        return copies[0].request.describe(destination=True)
    direction = "store" if copies[0].request.is_store else "load"
    return f"{direction} events {first_of([copy.request.event_idx for copy in copies])}"
