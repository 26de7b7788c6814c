"""Sampling and comparison for verification, and the backend's CPU-side error paths."""

from __future__ import annotations

import ctypes
import threading
from types import SimpleNamespace

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from kvguard.runtime import BlockSampler, CudaDriverError, OrderedCopyBackend
from kvguard.runtime import driver as runtime_driver
from kvguard.runtime.backend import _rows_of, _without
from kvguard.runtime.verify import StagingRing, plan_rows, row_offsets, staged_rows_differing


@pytest.mark.parametrize("fraction", [0.0, -0.1, 1.5])
def test_sampler_rejects_fractions_outside_zero_one(fraction: float) -> None:
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        BlockSampler(fraction)


def test_full_sampling_picks_every_block() -> None:
    sampler = BlockSampler(1.0)
    assert sampler.sample(5) == [0, 1, 2, 3, 4]
    assert sampler.sample(0) == []


@given(st.lists(st.integers(0, 64), min_size=1, max_size=50), st.integers(0, 2**32))
def test_samples_are_sorted_unique_and_in_range(batches: list[int], seed: int) -> None:
    sampler = BlockSampler(0.2, seed)
    for size in batches:
        picked = sampler.sample(size)
        assert picked == sorted(set(picked))
        assert all(0 <= i < size for i in picked)


@pytest.mark.parametrize(("fraction", "batch"), [(0.01, 1), (0.01, 1000), (0.25, 7)])
def test_sampling_rate_matches_the_fraction_for_any_batch_size(fraction: float, batch: int) -> None:
    sampler = BlockSampler(fraction, seed=3)
    blocks = 200_000
    picked = sum(len(sampler.sample(batch)) for _ in range(blocks // batch))
    expected = fraction * blocks
    assert abs(picked - expected) < 5 * (expected * (1 - fraction)) ** 0.5


@pytest.mark.parametrize(("fraction", "batch", "cluster"),
                         [(0.01, 256, 64), (0.01, 16, 64), (0.05, 1, 4), (0.2, 40, 1000)])
def test_clustered_samples_keep_the_fraction_and_check_fewer_batches(
    fraction: float, batch: int, cluster: int
) -> None:
    sampler = BlockSampler(fraction, seed=7)
    batches = 20_000
    counts = [len(sampler.sample(batch, cluster)) for _ in range(batches)]
    checked = min(1.0, max(fraction, fraction * batch / cluster))  # a batch's chance
    rate = fraction / checked  # a block's, in a checked batch
    mean = batch * rate
    variance = checked * batch * rate * (1 - rate) + checked * (1 - checked) * mean**2
    assert abs(sum(counts) - fraction * batch * batches) < 5 * (batches * variance) ** 0.5
    checked_batches = sum(count > 0 for count in counts)
    assert checked_batches <= checked * batches + 5 * (batches * checked) ** 0.5
    independent = 1 - (1 - fraction) ** batch  # a batch's chance, blocks picked one by one
    if checked < independent / 2:
        assert checked_batches < 0.75 * independent * batches


def test_same_seed_gives_same_samples() -> None:
    first, second = BlockSampler(0.1, seed=5), BlockSampler(0.1, seed=5)
    assert [first.sample(50) for _ in range(20)] == [second.sample(50) for _ in range(20)]


def stage(sources: list[torch.Tensor], blocks: list[int]) -> tuple[torch.Tensor, list[int], int]:
    """Fill staging rows as the driver would from plan_rows' descriptors (by address)."""
    block_bytes = [t.stride(0) * t.element_size() for t in sources]
    offsets, row_bytes = row_offsets(block_bytes)
    rows = torch.zeros((max(1, len(blocks)), row_bytes), dtype=torch.uint8)
    dsts, srcs, sizes = plan_rows([t.data_ptr() for t in sources], block_bytes, offsets, blocks,
                                  rows.data_ptr(), row_bytes)
    for dst, src, size in zip(dsts, srcs, sizes, strict=True):
        ctypes.memmove(dst, src, size)
    return rows, offsets, row_bytes


def differing(rows: torch.Tensor, offsets: list[int], row_bytes: int,
              hosts: list[torch.Tensor], blocks: list[int]) -> list[int]:
    return staged_rows_differing(rows.data_ptr(), row_bytes, offsets,
                                 [t.data_ptr() for t in hosts],
                                 [t.stride(0) * t.element_size() for t in hosts], blocks)


@given(
    blocks=st.lists(st.integers(0, 11), min_size=1, max_size=12),
    widths=st.lists(st.integers(1, 9), min_size=1, max_size=3),
    corrupt=st.sets(st.tuples(st.integers(0, 2), st.integers(0, 11), st.integers(0, 8))),
    dtype=st.sampled_from([torch.int32, torch.float16, torch.uint8]),
)
def test_staged_rows_differ_exactly_where_a_host_block_was_changed(
    blocks: list[int], widths: list[int], corrupt: set[tuple[int, int, int]], dtype: torch.dtype,
) -> None:
    sources = [torch.arange(12 * w).reshape(12, w).to(dtype) for w in widths]
    hosts = [t.clone() for t in sources]
    changed = set()
    for tensor, block, col in corrupt:
        if tensor < len(hosts) and col < widths[tensor]:
            hosts[tensor][block, col] += 1
            changed.add(block)
    rows, offsets, row_bytes = stage(sources, blocks)
    assert row_bytes % 8 == 0
    expected = [i for i, block in enumerate(blocks) if block in changed]
    assert differing(rows, offsets, row_bytes, hosts, blocks) == expected


def test_staged_rows_compare_bits_not_values() -> None:
    keys = torch.tensor([[float("nan"), 0.0], [1.0, 2.0]])
    rows, offsets, row_bytes = stage([keys], [0, 1])
    assert differing(rows, offsets, row_bytes, [keys.clone()], [0, 1]) == []  # NaN equals its bits
    negative_zero = keys.clone()
    negative_zero[0, 1] = -0.0
    assert differing(rows, offsets, row_bytes, [negative_zero], [0, 1]) == [0]


def test_backend_needs_init_before_launch() -> None:
    backend = OrderedCopyBackend()
    with pytest.raises(RuntimeError, match="init"):
        backend.launch_copy([1], [2], True, 0, [])
    backend.shutdown()
    backend.drain()  # nothing queued, nothing raised


def test_backend_rejects_bad_verify_fraction() -> None:
    with pytest.raises(ValueError, match="verification fraction"):
        OrderedCopyBackend(verify_fraction=2.0)


def test_driver_failure_names_the_call_and_code(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime_driver.cuda_driver, "cuInit", lambda flags: (
        runtime_driver.cuda_driver.CUresult.CUDA_ERROR_NO_DEVICE,))
    with pytest.raises(CudaDriverError) as caught:
        runtime_driver.init_driver()
    assert caught.value.call == "cuInit"
    assert caught.value.name == "CUDA_ERROR_NO_DEVICE"
    assert str(caught.value).startswith("cuInit failed with CUDA_ERROR_NO_DEVICE (100)")


def test_old_driver_is_refused_with_the_version_it_has(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime_driver, "init_driver", lambda: 12040)
    monkeypatch.setattr(runtime_driver, "_resolved", {})
    with pytest.raises(CudaDriverError, match=r"CUDA 12\.4.*12\.8 or newer"):
        runtime_driver.resolve_batch_memcpy()


@given(st.lists(st.one_of(st.integers(1, 9), st.none()), max_size=60))
def test_staging_ring_never_hands_out_held_rows(steps: list[int | None]) -> None:
    """Takes (a row count) and give-backs (None) in FIFO order, single-threaded: a take that
    would wait is skipped unless the ring is empty (then it grows)."""
    ring = StagingRing(7, 8, pinned=False)
    held: list[tuple[int, int]] = []
    for step in steps:
        if step is None:
            if held:
                ring.give_back()
                held.pop(0)
            continue
        if ring._free_start(step) is None and not (step > ring.rows and not held):
            continue  # would block: the consumer must give rows back first
        start = ring.take(step)
        assert start >= 0 and start + step <= ring.rows
        assert all(start + step <= first or first + count <= start for first, count in held)
        held.append((start, step))
        assert ring.address(start) == ring.address(0) + start * 8


def test_staging_ring_take_waits_for_the_consumer_and_grows_when_empty() -> None:
    ring = StagingRing(4, 8, pinned=False)
    ring.take(3)
    taken: list[int] = []
    producer = threading.Thread(target=lambda: taken.append(ring.take(2)))
    producer.start()
    producer.join(0.2)
    assert producer.is_alive() and taken == []  # one row free, two wanted: it waits
    ring.give_back()
    producer.join(5)
    assert taken == [0]
    grower = threading.Thread(target=lambda: taken.append(ring.take(6)))
    grower.start()
    grower.join(0.2)
    assert grower.is_alive()  # larger than the ring: waits until every row is back
    ring.give_back()
    grower.join(5)
    assert taken == [0, 0] and ring.rows == 6


@given(st.lists(st.integers(1, 12), min_size=1, max_size=6), st.data())
def test_a_groups_sampled_blocks_and_the_rest_split_it_exactly(
    sizes: list[int], data: st.DataObject
) -> None:
    """The copy thread copies a group's sampled blocks first and the rest after: together they
    are every block once, the rest in order, each sample named with its own request."""
    requests = [(tuple(range(100 * p, 100 * p + n)), tuple(range(-100 * p - n, -100 * p)))
                for p, n in enumerate(sizes)]
    ok = [SimpleNamespace(request=SimpleNamespace(src_blocks=s, dst_blocks=d))
          for s, d in requests]
    src = [b for s, _ in requests for b in s]
    dst = [b for _, d in requests for b in d]
    picked = sorted(data.draw(st.sets(st.integers(0, len(src) - 1))))
    rows = _rows_of(ok, src, dst, picked)  # type: ignore[arg-type]
    assert [(r.src, r.dst) for r in rows] == [(src[i], dst[i]) for i in picked]
    assert all(r.src in requests[r.position][0] for r in rows)
    rest = _without(src, picked)
    assert rest == [b for i, b in enumerate(src) if i not in set(picked)]
    assert _without(tuple(dst), picked) == [b for i, b in enumerate(dst) if i not in set(picked)]
