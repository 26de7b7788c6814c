"""The guard's evidence rules, policies and counters, on its own handshake made with stand-in
driver calls (runtime_sim.SimEventCalls)."""

from __future__ import annotations

import logging
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st
from runtime_sim import SimEventCalls

from kvguard.runtime import (
    CopyGuard,
    CopyRequest,
    CudaDriverError,
    GuardPolicy,
    GuardViolation,
    MemoryKind,
    SourceOrder,
    StreamEventLog,
    ViolationKind,
)
from kvguard.runtime.counters import RuntimeCounters
from kvguard.runtime.refusals import RefusalReason, Refusals

COMPUTE, OTHER, TRANSFER = 0x1000, 0x2000, 0x3000


class CurrentStream:
    """Stands in for PyTorch's current stream of the requesting thread."""

    def __init__(self) -> None:
        self.handle = COMPUTE

    def __call__(self) -> int:
        return self.handle


CURRENT = CurrentStream()


def guard(policy: GuardPolicy = GuardPolicy.RAISE) -> tuple[CopyGuard, SimEventCalls]:
    calls = SimEventCalls()
    CURRENT.handle = COMPUTE
    return CopyGuard(policy, event_calls=calls.as_driver(), current_stream=CURRENT), calls


def check(
    g: CopyGuard,
    request: CopyRequest,
    order: SourceOrder = SourceOrder.STREAM,
    waits: object = None,
) -> object:
    return g.check(request, TRANSFER, MemoryKind.DEVICE, order, waits)  # type: ignore[arg-type]


def open_store(g: CopyGuard, event_idx: int = 0, stream: int = COMPUTE) -> CopyRequest:
    CURRENT.handle = stream
    return g.open_request(True, event_idx, (1, 2), (3, 4))


def test_the_guards_own_record_and_wait_pass() -> None:
    g, calls = guard()
    request = open_store(g)
    g.wait(TRANSFER, request)
    assert calls.calls == [
        ("create", request.event),
        ("record", request.event, COMPUTE),
        ("wait", TRANSFER, request.event),
    ]
    assert check(g, request).copy  # type: ignore[attr-defined]
    assert g.counters.as_dict()["stores_checked"] == 1


def test_a_later_request_on_the_same_stream_covers_the_earlier_ones() -> None:
    g, _ = guard()
    first, second = open_store(g, 0), open_store(g, 1)
    g.wait(TRANSFER, second)
    assert check(g, first).copy and check(g, second).copy  # type: ignore[attr-defined]


def test_a_wait_made_outside_the_guard_is_not_evidence() -> None:
    g, calls = guard()
    request = open_store(g)
    assert calls.wait(TRANSFER, request.event) == 0  # the driver call, not the guard's
    with pytest.raises(GuardViolation) as caught:
        check(g, request)
    assert caught.value.kind == ViolationKind.NO_WAIT.value


@pytest.mark.parametrize(
    ("barrier", "kind"),
    [
        ("none", ViolationKind.NO_WAIT),
        ("wait on another stream", ViolationKind.NO_WAIT),
        ("wait on another compute stream's event", ViolationKind.WAIT_NOT_ON_COMPUTE),
        ("wait on an earlier request's event", ViolationKind.STALE_RECORD),
    ],
)
def test_missing_or_misdirected_barrier_is_named(barrier: str, kind: ViolationKind) -> None:
    g, _ = guard()
    earlier = open_store(g, -1)
    request = open_store(g)
    if barrier == "wait on another stream":
        g.wait(OTHER, request)
    elif barrier == "wait on another compute stream's event":
        g.wait(TRANSFER, open_store(g, 1, stream=OTHER))
    elif barrier == "wait on an earlier request's event":
        g.wait(TRANSFER, earlier)
    with pytest.raises(GuardViolation) as caught:
        check(g, request)
    assert caught.value.kind == kind.value
    assert "store event 0" in str(caught.value) and "Fix:" in str(caught.value)
    assert g.counters.as_dict()[f"violations_{kind.value}"] == 1
    assert g.counters.as_dict()["refused"] == 0  # the caller refuses it (refusals.py)


def test_wait_made_before_the_request_does_not_count() -> None:
    g, _ = guard()
    g.wait(TRANSFER, open_store(g, 0))
    request = open_store(g, 1)
    with pytest.raises(GuardViolation, match="no wait through the guard after the request"):
        check(g, request)


def test_requests_of_two_threads_on_one_stream_are_covered_by_the_newer_record() -> None:
    g, _ = guard()
    opened: list[CopyRequest] = []
    other = threading.Thread(target=lambda: opened.append(open_store(g, 0)))
    other.start()
    other.join()
    request = open_store(g, 1)
    assert opened[0].thread != request.thread
    g.wait(TRANSFER, request)
    assert check(g, opened[0]).copy and check(g, request).copy  # type: ignore[attr-defined]


def test_gpu_source_read_with_any_is_a_violation_even_when_ordered() -> None:
    g, _ = guard()
    request = open_store(g)
    g.wait(TRANSFER, request)
    with pytest.raises(GuardViolation) as caught:
        check(g, request, SourceOrder.ANY)
    assert caught.value.kind == ViolationKind.UNSAFE_SOURCE_ORDER.value


def test_pinned_host_source_may_use_any() -> None:
    g, _ = guard()
    request = g.open_request(False, 0, (1,), (2,))
    g.wait(TRANSFER, request)
    assert g.check(request, TRANSFER, MemoryKind.PINNED_HOST, SourceOrder.ANY).copy
    assert g.counters.as_dict()["loads_checked"] == 1


def test_events_are_pooled_once_released_and_destroyed_by_close() -> None:
    g, calls = guard()
    first = open_store(g, 0)
    second = open_store(g, 1)  # the first is not released yet: a second event
    g.wait(TRANSFER, second)
    g.release(first)
    g.release(second)
    third, fourth = open_store(g, 2), open_store(g, 3)
    assert {third.event, fourth.event} == {first.event, second.event}
    assert g.events_created == 2
    g.close()
    assert sorted(c[1] for c in calls.calls if c[0] == "destroy") == sorted([first.event, second.event])


def test_a_failed_event_destroy_at_close_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    g, calls = guard()
    g.release(open_store(g))
    calls.fail = {"destroy"}
    with caplog.at_level(logging.WARNING, logger="kvguard.runtime"):
        g.close()
    assert "cuEventDestroy failed for 1 of the guard's 1 events" in caplog.text
    assert g.events_created == 0


def test_driver_errors_in_the_handshake_raise_and_log_nothing() -> None:
    g, calls = guard()
    calls.fail = {"record"}
    with pytest.raises(CudaDriverError, match="cuEventRecord") as caught:
        open_store(g)
    assert "CUDA_ERROR_INVALID_VALUE" in str(caught.value)
    calls.fail = {"wait"}
    request = open_store(g)
    assert g.events_created == 1  # the event of the failed record went back to the pool
    with pytest.raises(CudaDriverError, match="cuStreamWaitEvent"):
        g.wait(TRANSFER, request)
    with pytest.raises(GuardViolation) as violation:  # the failed wait is not evidence
        check(g, request)
    assert violation.value.kind == ViolationKind.NO_WAIT.value
    calls.fail = {"create"}
    with pytest.raises(CudaDriverError, match="cuEventCreate"):
        open_store(g)


def test_refuse_skips_counts_and_logs_once_per_kind(caplog: pytest.LogCaptureFixture) -> None:
    g, _ = guard(GuardPolicy.REFUSE)
    with caplog.at_level(logging.WARNING, logger="kvguard.runtime"):
        verdicts = [check(g, open_store(g, i)) for i in range(3)]
    assert [v.copy for v in verdicts] == [False] * 3  # type: ignore[attr-defined]
    assert {v.violation for v in verdicts} == {ViolationKind.NO_WAIT}  # type: ignore[attr-defined]
    counters = g.counters.as_dict()
    assert counters["violations_no_wait"] == 3 and counters["refused"] == 0  # the caller's to count
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
        "stores_checked",
        "loads_checked",
        "refused",
        "verified",
        "mismatches",
        "recopied",
        *(f"violations_{kind.value}" for kind in ViolationKind),
    }
    assert set(counters.values()) == {0}
    counters["refused"] = 99  # a copy: the exporter cannot change the guard's counts
    assert g.counters.as_dict()["refused"] == 0


def test_counters_add_up_across_threads() -> None:
    counters = RuntimeCounters(["hits"])
    threads = [threading.Thread(target=lambda: [counters.add("hits") for _ in range(1000)]) for _ in range(8)]
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


def test_one_read_of_the_evidence_serves_a_group_of_requests() -> None:
    """The copy thread waits once on the newest compute record for a group of queued requests."""
    g, _ = guard()
    requests = [open_store(g, i) for i in range(3)]
    g.wait(TRANSFER, requests[-1])  # only the newest: recorded after every request of the group
    waits = g.evidence_for(requests, TRANSFER)
    assert [check(g, r, waits=waits).copy for r in requests] == [True] * 3  # type: ignore[attr-defined]
    late = open_store(g, 3)  # opened after the wait: the wait does not cover it
    with pytest.raises(GuardViolation) as caught:
        g.check(late, TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM, waits)
    assert caught.value.kind == ViolationKind.NO_WAIT.value


def test_group_evidence_keeps_the_stale_rule() -> None:
    g, _ = guard()
    first = open_store(g, 0)
    second = open_store(g, 1)
    g.wait(TRANSFER, first)  # recorded before the second request: stale for it
    waits = g.evidence_for([first, second], TRANSFER)
    assert check(g, first, waits=waits).copy  # type: ignore[attr-defined]
    with pytest.raises(GuardViolation) as caught:
        check(g, second, waits=waits)
    assert caught.value.kind == ViolationKind.STALE_RECORD.value


def test_check_group_counts_once_and_leaves_the_policy_to_the_caller() -> None:
    g, _ = guard(GuardPolicy.REFUSE)
    ordered = open_store(g, 0)
    g.wait(TRANSFER, ordered)
    late = open_store(g, 1)  # opened after the only wait
    kinds = g.check_group([ordered, late], TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)
    assert kinds == [None, ViolationKind.NO_WAIT]
    counters = g.counters.as_dict()
    assert counters["stores_checked"] == 2 and counters["violations_no_wait"] == 0
    verdict = g.apply_policy(late, TRANSFER, ViolationKind.NO_WAIT)
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
    g, _ = guard()
    requests = [open_store(g, i) for i in range(3)]
    assert not g.all_ordered(requests, TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)  # no wait
    g.wait(TRANSFER, requests[-1])
    assert g.all_ordered(requests, TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)
    assert g.counters.as_dict()["stores_checked"] == 3
    # Unsafe source order, another compute stream, a request after the wait: not proven here.
    assert not g.all_ordered(requests, TRANSFER, MemoryKind.DEVICE, SourceOrder.ANY)
    other = open_store(g, 9, stream=OTHER)
    assert not g.all_ordered([*requests, other], TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)
    assert not g.all_ordered([open_store(g, 4)], TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)
    assert g.counters.as_dict()["stores_checked"] == 3  # only the proven group was counted


def test_a_newest_wait_on_a_foreign_event_defers_to_the_full_search() -> None:
    g, _ = guard(GuardPolicy.REFUSE)
    request = open_store(g)
    g.wait(TRANSFER, request)
    g.wait(TRANSFER, open_store(g, 1, stream=OTHER))  # newest wait: on another stream's event
    assert not g.all_ordered([request], TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)
    kinds = g.check_group([request], TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM)
    assert kinds == [None]  # the older wait covers it
    assert g.counters.as_dict()["stores_checked"] == 1


@given(
    st.lists(
        st.tuples(st.sampled_from(["open", "open_other", "wait", "wait_elsewhere"]), st.integers(0, 39)),
        max_size=40,
    )
)
def test_the_verdict_is_exactly_whether_a_later_record_of_its_stream_was_waited_on(
    steps: list[tuple[str, int]],
) -> None:
    """Model: a request is ordered iff the transfer stream waited, through the guard, on the
    event of a request opened at or after it on the same compute stream. The fast witness never
    passes a group the model does not."""
    g, _ = guard(GuardPolicy.WARN)
    requests: list[CopyRequest] = []
    waited: list[CopyRequest] = []  # requests whose event the transfer stream waited on
    for step, pick in steps:
        if step in ("open", "open_other"):
            stream = COMPUTE if step == "open" else OTHER
            requests.append(open_store(g, len(requests), stream=stream))
        elif requests:
            target = requests[pick % len(requests)]
            if step == "wait":
                g.wait(TRANSFER, target)
                waited.append(target)
            else:
                g.wait(OTHER, target)
    if not requests:
        return
    model = [any(w.compute_stream == r.compute_stream and w.seq >= r.seq for w in waited) for r in requests]
    full = [g.find_violation(r, TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM) is None for r in requests]
    assert full == model
    if g.all_ordered(requests, TRANSFER, MemoryKind.DEVICE, SourceOrder.STREAM):
        assert all(model)


def test_a_thread_new_to_cuda_is_bound_to_the_compute_streams_context() -> None:
    g, calls = guard()
    requests: list[CopyRequest] = []

    def fresh_thread() -> None:
        calls.unbound_threads.add(threading.get_ident())
        requests.append(open_store(g))

    thread = threading.Thread(target=fresh_thread)
    thread.start()
    thread.join()
    names = [call[0] for call in calls.calls]
    assert names == ["create", "bind", "create", "record"]  # bound once, then both succeed
    assert calls.calls[1] == ("bind", COMPUTE)
    g.wait(TRANSFER, requests[0])
    assert check(g, requests[0]).copy  # type: ignore[attr-defined]


def test_a_context_that_cannot_be_bound_is_a_driver_error() -> None:
    g, calls = guard()
    calls.unbound_threads.add(threading.get_ident())
    calls.fail = {"bind"}
    with pytest.raises(CudaDriverError, match="cuEventCreate"):
        open_store(g)


def test_a_guard_serves_one_device() -> None:
    g = CopyGuard(event_calls=SimEventCalls().as_driver(), current_stream=CURRENT)
    g.attach(0)
    g.attach(0)
    with pytest.raises(ValueError, match="attached to cuda:0, not cuda:1"):
        g.attach(1)


def test_open_request_before_attach_is_refused() -> None:
    g = CopyGuard(event_calls=SimEventCalls().as_driver())
    with pytest.raises(RuntimeError, match=r"attach\(device_index\) must come before"):
        g.open_request(True, 0, (1,), (2,))


def test_a_refusal_is_counted_once_and_listed_once() -> None:
    g, _ = guard(GuardPolicy.REFUSE)
    refusals = Refusals(g.counters)
    request = open_store(g, 0)
    refusals.refuse(request, RefusalReason.of_violation(ViolationKind.STALE_RECORD))
    refusals.refuse(request, RefusalReason.COPY_ERROR)
    assert g.counters.as_dict()["refused"] == 2
    assert [(r.event_idx, r.is_store, r.reason) for r in refusals.take()] == [
        (0, True, "stale_record"),
        (0, True, "copy_error"),
    ]
    assert refusals.take() == []


def test_every_violation_kind_is_a_refusal_reason() -> None:
    assert {RefusalReason.of_violation(kind).value for kind in ViolationKind} == {
        kind.value for kind in ViolationKind
    }
