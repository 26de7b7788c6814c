"""The driver layer on a real device: entry points, orders per direction, error reporting."""

from __future__ import annotations

import threading
from array import array
from typing import Any

import pytest
import torch
from gpu_helpers import SLEEP_CYCLES, low_priority_stream, make_caches

from kvguard.runtime import (
    BatchCopier,
    BatchCopyError,
    BatchMemcpyAbi,
    CopyGuard,
    MemoryKind,
    SourceOrder,
    UnsafeSourceOrderError,
    plan_block_copies,
    resolve_batch_memcpy,
)
from kvguard.runtime.compare import PairComparer
from kvguard.runtime.driver import CUmemcpyAttributes, resolve_event_calls, resolve_kernel_calls


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
        dsts,
        srcs,
        sizes,
        plan.count,
        CUmemcpyAttributes(srcAccessOrder=int(SourceOrder.STREAM)),
        stream.cuda_stream,
    )
    stream.synchronize()
    assert (code, failed) == (0, None)
    for name in gpu:
        assert torch.equal(cpu[name][[0, 1, 7]], gpu[name][[3, 4, 9]].cpu())
    proof_results.setdefault("entry_points", {})[abi.name] = {
        "driver_version": entry.driver_version,
        "abi": int(entry.abi),
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


def test_the_guards_handshake_holds_the_transfer_stream_from_another_thread(
    proof_results: dict[str, Any],
) -> None:
    """The guard's own cuEventRecord on the requesting thread and cuStreamWaitEvent on a copy
    thread, on PyTorch's raw stream handles, hold the transfer stream behind the compute
    stream's work; the guard's log, fed by those two calls alone, proves the request ordered."""
    guard = CopyGuard()
    guard.attach(torch.cuda.current_device())
    compute, transfer = low_priority_stream(), low_priority_stream()
    with torch.cuda.stream(compute):
        torch.cuda._sleep(SLEEP_CYCLES)
        request = guard.open_request(True, 0, (0,), (0,))
    after_wait = torch.cuda.Event()
    device = torch.cuda.current_device()

    def copy_thread() -> None:
        torch.cuda.set_device(device)
        guard.wait(transfer.cuda_stream, request)
        after_wait.record(transfer)

    thread = threading.Thread(target=copy_thread)
    thread.start()
    thread.join()
    held = not after_wait.query()  # the transfer stream waits behind the sleep
    after_wait.synchronize()
    violation = guard.find_violation(request, transfer.cuda_stream, MemoryKind.DEVICE, SourceOrder.STREAM)
    guard.release(request)
    guard.close()
    proof_results["guard_handshake"] = {
        "transfer_held_behind_compute": held,
        "violation": None if violation is None else violation.value,
    }
    assert held and violation is None


def test_driver_event_record_is_stream_ordered_like_pytorchs(proof_results: dict[str, Any]) -> None:
    """The backend re-records reused completion events with cuEventRecord on PyTorch's handle."""
    record = resolve_event_calls().record
    stream = low_priority_stream()
    event = torch.cuda.Event()
    event.record(stream)  # PyTorch creates the event
    event.synchronize()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(SLEEP_CYCLES)
    code = record(event.cuda_event, stream.cuda_stream)
    pending = not event.query()  # recorded behind the sleep: not complete yet
    event.synchronize()
    proof_results["driver_event_record"] = {
        "code": code,
        "pending_behind_sleep": pending,
        "complete_after_sync": event.query(),
    }
    assert code == 0 and pending and event.query()


def compared(comparer: PairComparer, pairs: list[tuple[torch.Tensor, torch.Tensor]]) -> list[int]:
    """The differing pairs (GPU tensor, pinned host tensor of the same size), compared on a
    stream of their own."""
    stream = low_priority_stream()
    comparer.enqueue(
        stream.cuda_stream,
        array("q", [g.data_ptr() for g, _ in pairs]),
        array("q", [h.data_ptr() for _, h in pairs]),
        array("q", [g.numel() * g.element_size() for g, _ in pairs]),
    )
    stream.synchronize()
    return comparer.differing()


def test_the_compare_kernel_finds_every_changed_byte_and_nothing_else(
    proof_results: dict[str, Any],
) -> None:
    """Blocks of 64 KiB, 1,000 bytes (no 16-byte alignment) and 3 MiB (192 chunks a pair):
    equal pairs pass, a flipped first or last byte is found; bits are compared, so a NaN
    equals itself and -0.0 differs from 0.0. More pairs than one launch's grid holds are
    compared in several launches."""
    comparer = PairComparer(resolve_kernel_calls(), pinned=True)
    found = {}
    for size in (65536, 1000, 3 << 20):
        gpu = torch.randint(0, 256, (8, size), dtype=torch.uint8, device="cuda")
        host = gpu.cpu().pin_memory()
        assert compared(comparer, list(zip(gpu, host, strict=True))) == []
        host[3, size - 1] ^= 1
        host[6, 0] ^= 0x80
        found[size] = compared(comparer, list(zip(gpu, host, strict=True)))
        assert found[size] == [3, 6]
    keys = torch.tensor([float("nan"), 0.0, 1.0, 2.0], device="cuda")
    same_bits, negative_zero = keys.cpu().pin_memory(), keys.cpu().pin_memory()
    negative_zero[1] = -0.0
    assert compared(comparer, [(keys, same_bits), (keys, negative_zero)]) == [1]
    many = torch.arange(70_000 * 4, dtype=torch.int32, device="cuda").view(70_000, 4)
    host = many.cpu().pin_memory()
    host[69_999, 3] = -1
    assert compared(comparer, list(zip(many, host, strict=True))) == [69_999]
    comparer.close()
    proof_results["compare_kernel"] = {
        "found": {str(k): v for k, v in found.items()},
        "pairs_in_several_launches": 70_000,
    }
