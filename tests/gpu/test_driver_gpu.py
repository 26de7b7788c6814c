"""The driver layer on a real device: entry points, orders per direction, error reporting."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import torch
from gpu_helpers import SLEEP_CYCLES, low_priority_stream, make_caches

from kvguard.runtime import (
    BatchCopier,
    BatchCopyError,
    BatchMemcpyAbi,
    SourceOrder,
    UnsafeSourceOrderError,
    plan_block_copies,
    process_event_log,
    resolve_batch_memcpy,
)
from kvguard.runtime.driver import CUmemcpyAttributes, resolve_event_record


@pytest.mark.parametrize("abi", list(BatchMemcpyAbi))
def test_each_abi_resolves_and_copies(abi: BatchMemcpyAbi, proof_results: dict[str, Any]) -> None:
    entry = resolve_batch_memcpy(abi)
    gpu, cpu = make_caches(16, 16)
    for name, tensor in gpu.items():
        tensor.copy_(torch.arange(tensor.numel(), device="cuda").view_as(tensor) + len(name))
    stream = low_priority_stream()
    copier = BatchCopier(gpu, cpu, stream)
    plan = plan_block_copies(copier.src_layout, copier.dst_layout, [3, 4, 9], [0, 1, 7])
    dsts, srcs, sizes = plan.pointers()
    code, failed = entry(
        dsts, srcs, sizes, plan.count,
        CUmemcpyAttributes(srcAccessOrder=int(SourceOrder.STREAM)), stream.cuda_stream,
    )
    stream.synchronize()
    assert (code, failed) == (0, None)
    for name in gpu:
        assert torch.equal(cpu[name][[0, 1, 7]], gpu[name][[3, 4, 9]].cpu())
    proof_results.setdefault("entry_points", {})[abi.name] = {
        "driver_version": entry.driver_version, "abi": int(entry.abi),
    }
    assert resolve_batch_memcpy().abi is BatchMemcpyAbi.CUDA_12_8  # the default keeps failIdx


@pytest.mark.parametrize("order", [SourceOrder.ANY, SourceOrder.DURING_API_CALL])
def test_gpu_source_refuses_out_of_stream_orders(order: SourceOrder) -> None:
    gpu, cpu = make_caches(4, 4)
    with pytest.raises(UnsafeSourceOrderError, match="STREAM"):
        BatchCopier(gpu, cpu, low_priority_stream(), order)


def test_default_orders_per_direction() -> None:
    gpu, cpu = make_caches(4, 4)
    assert BatchCopier(gpu, cpu, low_priority_stream()).source_order is SourceOrder.STREAM
    assert BatchCopier(cpu, gpu, low_priority_stream()).source_order is SourceOrder.ANY


def test_driver_error_is_raised_with_its_name(proof_results: dict[str, Any]) -> None:
    gpu, cpu = make_caches(4, 4)
    copier = BatchCopier(gpu, cpu, low_priority_stream())
    copier._attributes.srcAccessOrder = 0  # CU_MEMCPY_SRC_ACCESS_ORDER_INVALID
    with pytest.raises(BatchCopyError, match="cuMemcpyBatchAsync failed") as caught:
        copier.copy([0, 2], [1, 3])
    assert caught.value.code != 0
    proof_results["driver_error_message"] = str(caught.value)


def test_legacy_default_stream_is_refused() -> None:
    gpu, cpu = make_caches(4, 4)
    with pytest.raises(ValueError, match="legacy default stream"):
        BatchCopier(gpu, cpu, torch.cuda.default_stream())


def test_trace_callbacks_report_records_and_waits_from_any_thread() -> None:
    """Pins the private PyTorch behaviour the guard's evidence relies on."""
    log = process_event_log()
    producer, consumer = torch.cuda.Stream(), torch.cuda.Stream()

    def waits_from(action: Any) -> list[tuple[int, int | None]]:
        seq = log.next_seq()
        action()
        return [
            (wait.stream, None if wait.record is None else wait.record.stream)
            for wait in log.waits_after(consumer.cuda_stream, seq)
        ]

    expected = [(consumer.cuda_stream, producer.cuda_stream)]

    def cuda_event() -> None:
        event = torch.cuda.Event()
        event.record(producer)
        consumer.wait_event(event)

    def generic_event() -> None:
        event = torch.Event(device="cuda")
        event.record(producer)
        event.wait(consumer)

    assert waits_from(cuda_event) == expected
    assert waits_from(generic_event) == expected
    assert waits_from(lambda: consumer.wait_stream(producer)) == expected

    seen: list[list[tuple[int, int | None]]] = []
    thread = threading.Thread(target=lambda: seen.append(waits_from(cuda_event)))
    thread.start()
    thread.join()
    assert seen == [expected]


def test_driver_event_record_is_stream_ordered_like_pytorchs(proof_results: dict[str, Any]) -> None:
    """The backend re-records reused completion events with cuEventRecord on PyTorch's handle."""
    record = resolve_event_record()
    assert record is not None
    stream = low_priority_stream()
    event = torch.cuda.Event()
    event.record(stream)  # PyTorch creates the event
    event.synchronize()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(SLEEP_CYCLES)
    code = record(event.cuda_event, stream.cuda_stream)
    pending = not event.query()  # recorded behind the sleep: not complete yet
    event.synchronize()
    proof_results["driver_event_record"] = {"code": code, "pending_behind_sleep": pending,
                                            "complete_after_sync": event.query()}
    assert code == 0 and pending and event.query()
