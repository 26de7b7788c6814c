"""The guard's evidence rules, policies and counters, fed facts as the trace callbacks would."""

from __future__ import annotations

import logging
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st
from torch.cuda import _gpu_trace

from kvguard.runtime import (
    CopyGuard,
    GuardPolicy,
    GuardViolation,
    MemoryKind,
    SourceOrder,
    StreamEventLog,
    ViolationKind,
    process_event_log,
)
from kvguard.runtime.counters import RuntimeCounters

COMPUTE, OTHER, TRANSFER = 0x1000, 0x2000, 0x3000


def guard(policy: GuardPolicy = GuardPolicy.RAISE) -> tuple[CopyGuard, StreamEventLog]:
    log = StreamEventLog()
    return CopyGuard(policy, event_log=log), log


def check(
    g: CopyGuard, request: object, order: SourceOrder = SourceOrder.STREAM, waits: object = None
) -> object:
    return g.check(request, TRANSFER, MemoryKind.DEVICE, order, waits)  # type: ignore[arg-type]


def open_store(g: CopyGuard, event_idx: int = 0) -> object:
    return g.open_request(COMPUTE, True, event_idx, (1, 2), (3, 4))


def test_barrier_recorded_at_request_and_waited_after_it_passes() -> None:
    g, log = guard()
    request = open_store(g)
    log.on_record(7, COMPUTE)
    log.on_wait(7, TRANSFER)
    assert check(g, request).copy  # type: ignore[attr-defined]
    assert g.counters.as_dict()["stores_checked"] == 1


def test_event_recorded_before_the_request_passes_if_fresh() -> None:
    """vLLM's worker records its compute-done event, then calls launch_copy."""
    g, log = guard()
    log.on_record(7, COMPUTE)
    request = open_store(g)
    log.on_wait(7, TRANSFER)
    assert check(g, request).copy  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("facts", "kind"),
    [
        ([], ViolationKind.NO_WAIT),
        ([("record", 7, COMPUTE), ("wait", 7, OTHER)], ViolationKind.NO_WAIT),
        ([("record", 7, OTHER), ("wait", 7, TRANSFER)], ViolationKind.WAIT_NOT_ON_COMPUTE),
        ([("wait", 99, TRANSFER)], ViolationKind.WAIT_NOT_ON_COMPUTE),
    ],
)
def test_missing_or_misdirected_barrier_is_named(
    facts: list[tuple[str, int, int]], kind: ViolationKind
) -> None:
    g, log = guard()
    request = open_store(g)
    for what, event, stream in facts:
        (log.on_record if what == "record" else log.on_wait)(event, stream)
    with pytest.raises(GuardViolation) as caught:
        check(g, request)
    assert caught.value.kind == kind.value
    assert "store event 0" in str(caught.value) and "Fix:" in str(caught.value)
    assert g.counters.as_dict()[f"violations_{kind.value}"] == 1


def test_wait_made_before_the_request_does_not_count() -> None:
    g, log = guard()
    log.on_record(7, COMPUTE)
    log.on_wait(7, TRANSFER)
    request = open_store(g)
    with pytest.raises(GuardViolation, match="no wait after the request"):
        check(g, request)


def test_event_recorded_before_the_previous_request_is_stale() -> None:
    g, log = guard()
    log.on_record(7, COMPUTE)
    open_store(g, 0)
    request = open_store(g, 1)
    log.on_wait(7, TRANSFER)
    with pytest.raises(GuardViolation) as caught:
        check(g, request)
    assert caught.value.kind == ViolationKind.STALE_RECORD.value


def test_previous_request_is_tracked_per_thread() -> None:
    g, log = guard()
    log.on_record(7, COMPUTE)
    other = threading.Thread(target=lambda: open_store(g, 0))
    other.start()
    other.join()
    request = open_store(g, 1)  # this thread's first request: the record is fresh for it
    log.on_wait(7, TRANSFER)
    assert check(g, request).copy  # type: ignore[attr-defined]


def test_gpu_source_read_with_any_is_a_violation_even_when_ordered() -> None:
    g, log = guard()
    request = open_store(g)
    log.on_record(7, COMPUTE)
    log.on_wait(7, TRANSFER)
    with pytest.raises(GuardViolation) as caught:
        check(g, request, SourceOrder.ANY)
    assert caught.value.kind == ViolationKind.UNSAFE_SOURCE_ORDER.value


def test_pinned_host_source_may_use_any() -> None:
    g, log = guard()
    request = g.open_request(COMPUTE, False, 0, (1,), (2,))
    log.on_record(7, COMPUTE)
    log.on_wait(7, TRANSFER)
    assert g.check(request, TRANSFER, MemoryKind.PINNED_HOST, SourceOrder.ANY).copy
    assert g.counters.as_dict()["loads_checked"] == 1


def test_refuse_skips_counts_and_logs_once_per_kind(caplog: pytest.LogCaptureFixture) -> None:
    g, _ = guard(GuardPolicy.REFUSE)
    with caplog.at_level(logging.WARNING, logger="kvguard.runtime"):
        verdicts = [check(g, open_store(g, i)) for i in range(3)]
    assert [v.copy for v in verdicts] == [False] * 3  # type: ignore[attr-defined]
    assert {v.violation for v in verdicts} == {ViolationKind.NO_WAIT}  # type: ignore[attr-defined]
    counters = g.counters.as_dict()
    assert counters["refused"] == counters["violations_no_wait"] == 3
    assert len(caplog.records) == 1 and "refused" in caplog.records[0].getMessage()


def test_warn_copies_anyway_and_counts() -> None:
    g, _ = guard(GuardPolicy.WARN)
    verdict = check(g, open_store(g))
    assert verdict.copy and verdict.violation is ViolationKind.NO_WAIT  # type: ignore[attr-defined]
    assert g.counters.as_dict()["refused"] == 0


def test_counters_are_a_flat_dict_of_ints_with_every_name_from_the_start() -> None:
    g, _ = guard()
    counters = g.counters.as_dict()
    assert set(counters) == {
        "stores_checked", "loads_checked", "refused", "verified", "mismatches", "recopied",
        *(f"violations_{kind.value}" for kind in ViolationKind),
    }
    assert set(counters.values()) == {0}
    counters["refused"] = 99  # a copy: the exporter cannot change the guard's counts
    assert g.counters.as_dict()["refused"] == 0


def test_counters_add_up_across_threads() -> None:
    counters = RuntimeCounters(["hits"])
    threads = [threading.Thread(target=lambda: [counters.add("hits") for _ in range(1000)])
               for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counters.as_dict() == {"hits": 8000}
    with pytest.raises(KeyError, match="unknown counter"):
        counters.add("misses")


def test_log_forgets_deleted_events_and_keeps_seq_order() -> None:
    log = StreamEventLog(waits_kept_per_stream=4)
    log.on_record(7, COMPUTE)
    log.on_delete(7)
    log.on_wait(7, TRANSFER)
    assert log.waits_after(TRANSFER, 0)[0].record is None
    for event in range(10):
        log.on_wait(event, TRANSFER)
    waits = log.waits_after(TRANSFER, 0)
    assert [w.event_id for w in waits] == [9, 8, 7, 6]
    assert log.waits_after(TRANSFER, waits[1].seq) == waits[:1]


def test_process_log_is_fed_by_pytorch_trace_callbacks() -> None:
    log = process_event_log()
    assert process_event_log() is log  # installed once: PyTorch cannot remove callbacks
    seq = log.next_seq()
    _gpu_trace.EventRecordCallbacks.fire_callbacks(0xE1, COMPUTE)
    _gpu_trace.EventWaitCallbacks.fire_callbacks(0xE1, TRANSFER)
    waits = log.waits_after(TRANSFER, seq)
    assert [(w.event_id, w.record.stream if w.record else None) for w in waits] == [
        (0xE1, COMPUTE)
    ]
    _gpu_trace.EventDeletionCallbacks.fire_callbacks(0xE1)
    _gpu_trace.EventWaitCallbacks.fire_callbacks(0xE1, TRANSFER)
    assert log.waits_after(TRANSFER, seq)[0].record is None


def test_one_read_of_the_evidence_serves_a_group_of_requests() -> None:
    """The copy thread waits once on the newest compute record for a group of queued requests."""
    g, log = guard()
    requests = []
    for i in range(3):
        requests.append(open_store(g, i))
        log.on_record(10 + i, COMPUTE)  # each request's own event, recorded after it opens
    log.on_wait(12, TRANSFER)  # only the newest: recorded after every request of the group
    waits = g.evidence_for(requests, TRANSFER)
    assert [check(g, r, waits=waits).copy for r in requests] == [True] * 3  # type: ignore[attr-defined]
    late = open_store(g, 3)  # opened after the wait: the wait does not cover it
    with pytest.raises(GuardViolation) as caught:
        g.check(late, TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM, waits)
    assert caught.value.kind == ViolationKind.NO_WAIT.value


def test_group_evidence_keeps_the_stale_rule() -> None:
    g, log = guard()
    log.on_record(7, COMPUTE)
    first = open_store(g, 0)
    second = open_store(g, 1)  # its previous request came after the record: stale for it
    log.on_wait(7, TRANSFER)
    waits = g.evidence_for([first, second], TRANSFER)
    assert check(g, first, waits=waits).copy  # type: ignore[attr-defined]
    with pytest.raises(GuardViolation) as caught:
        check(g, second, waits=waits)
    assert caught.value.kind == ViolationKind.STALE_RECORD.value


def test_check_group_counts_once_and_leaves_the_policy_to_the_caller() -> None:
    g, log = guard(GuardPolicy.REFUSE)
    ordered = open_store(g, 0)
    log.on_record(7, COMPUTE)
    log.on_wait(7, TRANSFER)
    late = open_store(g, 1)  # opened after the only wait
    kinds = g.check_group([ordered, late], TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)  # type: ignore[list-item]
    assert kinds == [None, ViolationKind.NO_WAIT]
    counters = g.counters.as_dict()
    assert counters["stores_checked"] == 2 and counters["violations_no_wait"] == 0
    verdict = g.apply_policy(late, TRANSFER, ViolationKind.NO_WAIT)  # type: ignore[arg-type]
    assert not verdict.copy and g.counters.as_dict()["violations_no_wait"] == 1


@pytest.mark.parametrize("newer", [0, 1, 3, 4, 5, 16, 17, 63, 64, 65, 200])
def test_waits_after_returns_every_newer_wait_up_to_the_limit(newer: int) -> None:
    log = StreamEventLog()
    for event in range(50):
        log.on_wait(event, TRANSFER)
    seq = log.next_seq()
    for event in range(newer):
        log.on_wait(1000 + event, TRANSFER)
    waits = log.waits_after(TRANSFER, seq)
    expected = list(range(1000 + newer - 1, 999, -1))[:64]
    assert [w.event_id for w in waits] == expected


def test_the_newest_wait_alone_proves_a_one_stream_group() -> None:
    g, log = guard()
    requests = []
    for i in range(3):
        requests.append(open_store(g, i))
        log.on_record(10 + i, COMPUTE)
    assert not g.all_ordered(requests, TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)  # no wait
    log.on_wait(12, TRANSFER)
    assert g.all_ordered(requests, TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)
    assert g.counters.as_dict()["stores_checked"] == 3
    # Unsafe source order, another compute stream, a request after the wait: not proven here.
    assert not g.all_ordered(requests, TRANSFER, MemoryKind.DEVICE, SourceOrder.ANY)
    other = g.open_request(OTHER, True, 9, (1,), (2,))
    assert not g.all_ordered([*requests, other], TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)
    assert not g.all_ordered([open_store(g, 4)], TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)
    assert g.counters.as_dict()["stores_checked"] == 3  # only the proven group was counted


def test_a_newest_wait_on_a_foreign_event_defers_to_the_full_search() -> None:
    g, log = guard(GuardPolicy.REFUSE)
    request = open_store(g)
    log.on_record(7, COMPUTE)
    log.on_wait(7, TRANSFER)
    log.on_record(8, OTHER)
    log.on_wait(8, TRANSFER)  # newest wait: on another stream's event
    assert not g.all_ordered([request], TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)  # type: ignore[list-item]
    kinds = g.check_group([request], TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)  # type: ignore[list-item]
    assert kinds == [None]  # the older wait covers it
    assert g.counters.as_dict()["stores_checked"] == 1


@given(st.lists(st.tuples(st.sampled_from(["open", "open_other", "record", "record_other",
                                           "wait", "wait_other", "wait_unknown"]),
                          st.integers(0, 3)), max_size=40))
def test_the_fast_witness_never_passes_what_the_full_search_flags(
    steps: list[tuple[str, int]],
) -> None:
    g, log = guard(GuardPolicy.WARN)
    requests = []
    for step, event in steps:
        if step == "open":
            requests.append(g.open_request(COMPUTE, True, len(requests), (1,), (2,)))
        elif step == "open_other":
            requests.append(g.open_request(OTHER, True, len(requests), (1,), (2,)))
        elif step == "record":
            log.on_record(event, COMPUTE)
        elif step == "record_other":
            log.on_record(event, OTHER)
        elif step == "wait":
            log.on_wait(event, TRANSFER)
        elif step == "wait_other":
            log.on_wait(event, OTHER)
        else:
            log.on_wait(100 + event, TRANSFER)  # an event never recorded
    if not requests:
        return
    full = [g.find_violation(r, TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)
            for r in requests]
    if g.all_ordered(requests, TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM):
        assert full == [None] * len(requests)
