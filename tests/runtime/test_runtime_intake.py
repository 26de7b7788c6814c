"""Request intake and grouping (kvguard.runtime.intake) as pure functions: no thread, no CUDA."""

from __future__ import annotations

import threading
from collections import deque

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvguard.runtime.guard import CopyRequest
from kvguard.runtime.intake import (
    PLAN_EARLY_FROM,
    Drain,
    GroupLimits,
    QueuedCopy,
    barrier_targets,
    blocks_of,
    gather_group,
    group_block_cap,
    hands_over,
    plans_early,
    split_candidate,
)

QueueItem = QueuedCopy | Drain | None


def queued(
    event_idx: int,
    blocks: int,
    is_store: bool = True,
    stream: int = 1,
    seq: int | None = None,
    caller_event: object = None,
    planned: bool = False,
) -> QueuedCopy:
    src = list(range(100 * event_idx, 100 * event_idx + blocks))
    request = CopyRequest(event_idx if seq is None else seq, 0, stream, 0, is_store, event_idx, src, src)
    return QueuedCopy(request, caller_event, [], object() if planned else None)  # type: ignore[arg-type]


def gather(
    items: list[QueueItem], limits: GroupLimits, cap: int = 1 << 30
) -> tuple[list[int], QueueItem, bool]:
    """gather_group over a plain deque, as the copy thread runs it over its queue."""
    waiting = deque(items)
    first = waiting.popleft()
    assert isinstance(first, QueuedCopy)
    caps_read: list[int] = []

    def block_cap() -> int:
        caps_read.append(cap)
        return cap

    gathered = gather_group(first, lambda: bool(waiting), waiting.popleft, limits, block_cap)
    assert gathered.blocks == sum(len(copy.request.src_blocks) for copy in gathered.group)
    assert len(caps_read) <= 1  # read at most once a group
    return [copy.request.event_idx for copy in gathered.group], gathered.next_item, gathered.carried


def test_a_group_takes_queued_requests_of_one_direction_up_to_the_caps() -> None:
    limits = GroupLimits(max_group=3)
    assert gather([queued(i, 1) for i in range(5)], limits)[0] == [0, 1, 2]
    group, next_item, carried = gather([queued(0, 1), queued(1, 1), queued(2, 1, is_store=False)], limits)
    assert group == [0, 1] and carried and isinstance(next_item, QueuedCopy)
    assert next_item.request.event_idx == 2  # it starts the next round
    group, _, carried = gather([queued(0, 4), queued(1, 4), queued(2, 4)], GroupLimits(), cap=8)
    assert group == [0, 1] and not carried  # full: the third is left in the queue
    group, next_item, carried = gather([queued(0, 4), queued(1, 4), queued(2, 4)], GroupLimits(), cap=9)
    assert group == [0, 1] and carried and next_item.request.event_idx == 2  # type: ignore[union-attr]


def test_a_marker_or_shutdown_ends_a_group_and_is_handed_back() -> None:
    marker = Drain(threading.Event())
    assert gather([queued(0, 1), marker, queued(1, 1)], GroupLimits()) == ([0], marker, True)
    assert gather([queued(0, 1), None], GroupLimits()) == ([0], None, True)
    assert gather([queued(0, 1)], GroupLimits()) == ([0], None, False)  # nothing else queued


def test_the_cap_is_not_read_when_no_request_could_join() -> None:
    def unread() -> int:
        raise AssertionError("the cap asks the driver: read only when a request may join")

    alone = queued(0, 1)
    assert gather_group(alone, lambda: False, lambda: None, GroupLimits(), unread).group == [alone]
    big = queued(0, 1024)
    assert gather_group(big, lambda: True, lambda: None, GroupLimits(), unread).group == [big]
    single = GroupLimits(max_group=1)
    assert gather_group(alone, lambda: True, lambda: None, single, unread).group == [alone]


@given(
    sizes=st.lists(st.integers(1, 40), min_size=1, max_size=30),
    max_group=st.integers(1, 8),
    cap=st.integers(1, 100),
)
def test_consecutive_groups_keep_request_order_and_respect_the_caps(
    sizes: list[int], max_group: int, cap: int
) -> None:
    items: deque[QueueItem] = deque(queued(i, size) for i, size in enumerate(sizes))
    limits = GroupLimits(max_group=max_group)
    taken: list[int] = []
    item = items.popleft()
    while isinstance(item, QueuedCopy):
        gathered = gather_group(item, lambda: bool(items), items.popleft, limits, lambda: cap)
        taken += [copy.request.event_idx for copy in gathered.group]
        assert len(gathered.group) <= max_group
        assert len(gathered.group) == 1 or gathered.blocks <= cap
        item = gathered.next_item if gathered.carried else (items.popleft() if items else None)
    assert taken == list(range(len(sizes)))


@pytest.mark.parametrize(
    ("idle", "newest", "expected"),
    [(True, 500, 16), (False, 0, 16), (False, 16, 32), (False, 300, 600), (False, 900, 1024)],
)
def test_the_block_cap_starts_small_on_an_idle_stream_and_doubles_while_busy(
    idle: bool, newest: int, expected: int
) -> None:
    limits = GroupLimits(first_group_bytes=16 * 64)
    assert group_block_cap(limits, 64, idle, newest) == expected


def test_small_blocks_are_never_capped_below_the_group_limit_by_the_first_group_bytes() -> None:
    assert group_block_cap(GroupLimits(), 1 << 10, stream_idle=True, newest_group_blocks=0) == 1024


@pytest.mark.parametrize(
    ("waiting", "backlog", "expected"),
    [
        (8 << 20, 16, True),
        (8 << 20, 15, False),
        ((8 << 20) - 1, 100, False),
        (64 << 20, 3, True),
        (64 << 20, 2, False),
        (1 << 30, 2, False),
    ],
)
def test_hand_over_needs_a_backlog_holding_enough_bytes(waiting: int, backlog: int, expected: bool) -> None:
    assert hands_over(GroupLimits(), waiting, backlog) is expected


def test_launch_copy_plans_only_large_host_bound_requests_behind_others() -> None:
    assert plans_early(True, PLAN_EARLY_FROM, others_queued=True)
    assert not plans_early(True, PLAN_EARLY_FROM - 1, others_queued=True)
    assert not plans_early(True, PLAN_EARLY_FROM, others_queued=False)
    assert not plans_early(False, 10 * PLAN_EARLY_FROM, others_queued=True)


def test_only_a_lone_request_the_copy_thread_plans_is_split() -> None:
    limits = GroupLimits(first_group_bytes=16 * 64)
    assert split_candidate([queued(0, 100)], limits, 64) == 16
    assert split_candidate([queued(0, 16)], limits, 64) == 0  # no larger than the first call
    assert split_candidate([queued(0, 100, planned=True)], limits, 64) == 0
    assert split_candidate([queued(0, 100), queued(1, 100)], limits, 64) == 0
    assert split_candidate([queued(0, 100)], limits, 1 << 20) == 0  # a block above 16 MiB


def test_a_group_waits_on_the_newest_request_per_stream_and_each_caller_event_once() -> None:
    shared, own = object(), object()
    group = [
        queued(0, 1, stream=1, seq=5, caller_event=shared),
        queued(1, 1, stream=2, seq=3),
        queued(2, 1, stream=1, seq=4, caller_event=shared),  # queued later, opened earlier
        queued(3, 1, stream=2, seq=6, caller_event=own),
    ]
    requests, caller_events = barrier_targets(group)
    assert sorted((r.compute_stream, r.seq) for r in requests) == [(1, 5), (2, 6)]
    assert caller_events == [shared, own]


def test_a_groups_blocks_are_its_requests_blocks_in_order() -> None:
    alone = queued(0, 3)
    assert blocks_of([alone]) == (alone.request.src_blocks, alone.request.dst_blocks)
    src, dst = blocks_of([queued(0, 2), queued(1, 1)])
    assert list(src) == [0, 1, 100] and list(dst) == [0, 1, 100]
