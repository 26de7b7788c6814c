"""Source access order per direction, and the planner that turns blocks into descriptors."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from kvguard.runtime import (
    CacheLayout,
    MemoryKind,
    SourceOrder,
    UnsafeSourceOrderError,
    check_source_order,
    plan_block_copies,
)
from kvguard.runtime.batch_copy import (
    BatchCopier,
    check_pairing,
    join_descriptors,
    memory_kind,
    name_descriptor,
    plan_of,
)
from kvguard.runtime.driver import CUmemcpyAttributes
from kvguard.runtime.errors import BatchCopyError
from kvguard.runtime.order import default_source_order


@pytest.mark.parametrize("order", [SourceOrder.ANY, SourceOrder.DURING_API_CALL])
def test_gpu_source_refuses_orders_that_read_ahead_of_the_stream(order: SourceOrder) -> None:
    with pytest.raises(UnsafeSourceOrderError, match="STREAM"):
        check_source_order(MemoryKind.DEVICE, order)


@pytest.mark.parametrize("order", list(SourceOrder))
def test_pinned_host_source_accepts_every_order(order: SourceOrder) -> None:
    check_source_order(MemoryKind.PINNED_HOST, order)


def test_defaults_are_stream_for_stores_and_any_for_loads() -> None:
    assert default_source_order(MemoryKind.DEVICE) is SourceOrder.STREAM
    assert default_source_order(MemoryKind.PINNED_HOST) is SourceOrder.ANY
    assert [int(order) for order in SourceOrder] == [1, 2, 3]  # the driver's numbering


def test_unpinned_host_cache_is_refused_with_a_fix() -> None:
    with pytest.raises(ValueError, match="pin_memory"):
        memory_kind({"k": torch.zeros(4, 8)})


def layout(base: int, block_bytes: tuple[int, ...], blocks: int) -> CacheLayout:
    names = tuple(f"layer{i}" for i in range(len(block_bytes)))
    bases = tuple(base + i * (1 << 30) for i in range(len(block_bytes)))
    return CacheLayout(names, bases, block_bytes, (blocks,) * len(block_bytes))


@given(
    pairs=st.lists(
        st.tuples(st.integers(0, 63), st.integers(0, 31)),
        min_size=1,
        max_size=40,
        unique_by=(lambda p: p[0], lambda p: p[1]),
    ),
    block_bytes=st.lists(st.sampled_from([16, 64, 4096]), min_size=1, max_size=3),
)
def test_plan_copies_exactly_the_requested_blocks(
    pairs: list[tuple[int, int]], block_bytes: list[int]
) -> None:
    src = layout(1 << 40, tuple(block_bytes), 64)
    dst = layout(1 << 44, tuple(block_bytes), 32)
    src_blocks, dst_blocks = [p[0] for p in pairs], [p[1] for p in pairs]
    plan = plan_block_copies(src, dst, src_blocks, dst_blocks)
    copied = set()
    for d, s, size in zip(
        plan.dst_addresses.tolist(), plan.src_addresses.tolist(), plan.sizes.tolist(), strict=True
    ):
        layer = next(i for i, b in enumerate(src.base_addresses) if b <= s < b + (1 << 30))
        step = src.block_bytes[layer]
        assert size % step == 0
        for k in range(size // step):
            copied.add(
                (
                    layer,
                    (s - src.base_addresses[layer]) // step + k,
                    (d - dst.base_addresses[layer]) // step + k,
                )
            )
    expected = {(layer, s, d) for layer in range(len(block_bytes)) for s, d in pairs}
    assert copied == expected
    runs = 1 + sum(
        1
        for i in range(1, len(pairs))
        if (src_blocks[i], dst_blocks[i]) != (src_blocks[i - 1] + 1, dst_blocks[i - 1] + 1)
    )
    assert plan.count == runs * len(block_bytes)


def test_describe_names_tensor_and_blocks_of_a_failing_descriptor() -> None:
    src, dst = layout(1 << 40, (64, 64), 16), layout(1 << 44, (64, 64), 16)
    plan = plan_block_copies(src, dst, [3, 4, 9], [0, 1, 5])
    text = plan.describe(3, src)  # second tensor, second run
    assert "'layer1'" in text and "source blocks 9..9" in text and "destination blocks 5..5" in text


@pytest.mark.parametrize(
    ("src_blocks", "dst_blocks", "error", "words"),
    [
        ([1, 2], [1], ValueError, "each source block"),
        ([], [], ValueError, "no blocks"),
        ([16], [0], IndexError, "source block 16"),
        ([0], [-1], IndexError, "destination block -1"),
    ],
)
def test_plan_rejects_bad_block_lists(
    src_blocks: list[int], dst_blocks: list[int], error: type[Exception], words: str
) -> None:
    src, dst = layout(1 << 40, (64,), 16), layout(1 << 44, (64,), 16)
    with pytest.raises(error, match=words):
        plan_block_copies(src, dst, src_blocks, dst_blocks)


def test_pairing_requires_same_names_and_block_sizes() -> None:
    keys = CacheLayout.of({"k": torch.zeros(4, 8)})
    with pytest.raises(ValueError, match="different tensors"):
        check_pairing(keys, CacheLayout.of({"v": torch.zeros(4, 8)}))
    with pytest.raises(ValueError, match="same block layout"):
        check_pairing(keys, CacheLayout.of({"k": torch.zeros(4, 4)}))


def test_layout_requires_contiguous_block_major_tensors() -> None:
    with pytest.raises(ValueError, match="first dimension is the block index"):
        CacheLayout.of({"k": torch.zeros(8, 4).t()})
    assert CacheLayout.of({"k": torch.zeros(4, 8, dtype=torch.float16)}).block_bytes == (16,)


@pytest.mark.parametrize("adjacent", [True, False])
@pytest.mark.parametrize("blocks", [1, 2, 21, 22, 23, 128, 700])
def test_numpy_and_plain_planners_agree(blocks: int, adjacent: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    from kvguard.runtime import batch_copy

    rng = random.Random(blocks)
    src, dst = layout(1 << 40, (64, 4096), 2048), layout(1 << 44, (64, 4096), 1024)
    src_blocks = rng.sample(range(0, 2048, 2), blocks)  # even: no two adjacent
    dst_blocks = rng.sample(range(1024), blocks)
    if adjacent:  # some runs adjacent on both sides
        for i in range(1, blocks, 3):
            src_blocks[i], dst_blocks[i] = src_blocks[i - 1] + 1, dst_blocks[i - 1] + 1
    src_blocks = [min(b, 2047) for b in src_blocks]
    dst_blocks = [min(b, 1023) for b in dst_blocks]
    fast = plan_block_copies(src, dst, src_blocks, dst_blocks)
    monkeypatch.setattr(batch_copy, "_np", None)
    plain = plan_block_copies(src, dst, src_blocks, dst_blocks)
    assert fast == plain
    assert fast.count == len(fast.sizes) == len(fast.dst_addresses)
    assert (fast.count < 2 * blocks) is (adjacent and blocks > 1)
    with pytest.raises(IndexError, match="source block 2048"):
        plan_block_copies(src, dst, [*src_blocks[:-1], 2048], dst_blocks)


def test_joined_plans_make_one_calls_descriptors_and_each_failure_is_named() -> None:
    src, dst = layout(1 << 40, (64, 64), 16), layout(1 << 44, (64, 64), 16)
    first = plan_block_copies(src, dst, [3, 4], [0, 1])  # one run: 2 descriptors
    second = plan_block_copies(src, dst, [9, 12], [5, 7])  # two runs: 4 descriptors
    dsts, srcs, sizes = join_descriptors([first, second])
    assert dsts == first.dst_addresses + second.dst_addresses
    assert srcs == first.src_addresses + second.src_addresses
    assert sizes == first.sizes + second.sizes
    assert len(sizes) == 6

    def name(failed: int | None) -> str:
        return name_descriptor(failed, [first, second], src)

    assert name(1).startswith("descriptor 1: tensor 'layer1', source blocks 3..4")
    assert name(5).startswith("descriptor 5: tensor 'layer1', source blocks 12..12")
    unnamed = name(None)
    assert name(6) == "the driver named descriptor 6, but the call had 6"
    assert name_descriptor(None, [], src) == "the call had no descriptors"
    assert unnamed.startswith(
        "the driver did not say which of the call's 6 descriptors failed; "
        "the call copied source blocks [3, 4, 9, 12] (descriptor 0: tensor "
        "'layer0', source blocks 3..4"
    )
    assert "; ...; descriptor 5: tensor 'layer1', source blocks 12..12" in unnamed


@given(
    requests=st.lists(
        st.lists(st.tuples(st.integers(0, 63), st.integers(0, 31)), min_size=1, max_size=12),
        min_size=1,
        max_size=5,
    ),
)
def test_every_descriptor_of_a_joined_call_is_named_from_its_own_plan(
    requests: list[list[tuple[int, int]]],
) -> None:
    src, dst = layout(1 << 40, (64, 128), 64), layout(1 << 44, (64, 128), 32)
    plans = [plan_block_copies(src, dst, [p[0] for p in pairs], [p[1] for p in pairs]) for pairs in requests]
    dsts, srcs, sizes = join_descriptors(plans)
    offset = 0
    for position, plan in enumerate(plans):
        end = offset + plan.count
        assert dsts[offset:end] == plan.dst_addresses and srcs[offset:end] == plan.src_addresses
        assert sizes[offset:end] == plan.sizes
        for index in range(plan.count):
            named = name_descriptor(offset + index, plans, src)
            assert named == plan.describe(index, src, offset)
            assert named.startswith(f"descriptor {offset + index}: ")
            assert plan_of(offset + index, plans) == position  # the request it copies
        offset = end
    assert len(sizes) == offset
    assert plan_of(offset, plans) is None and plan_of(None, plans) is None


@pytest.mark.parametrize(
    ("failed", "plan"), [(None, None), (0, 0), (1, 0), (2, 1), (5, 1), (6, 2), (7, 2), (8, None)]
)
def test_a_failed_call_names_the_plan_that_holds_the_copy_the_driver_named(
    failed: int | None,
    plan: int | None,
) -> None:
    """BatchCopier.copy_planned on a stand-in entry point that fails the call with failIdx
    `failed`: the error names the descriptor and the plan (the request) holding it."""
    caches = {name: torch.zeros(64, 16, dtype=torch.int32) for name in ("layer0", "layer1")}
    copier = object.__new__(BatchCopier)  # the driver's parts, without a device
    copier.src_layout = copier.dst_layout = CacheLayout.of(caches)
    copier._attributes, copier._stream_handle = CUmemcpyAttributes(srcAccessOrder=1), 1
    calls: list[int] = []

    def entry(
        dsts: int, srcs: int, sizes: int, count: int, attrs: object, stream: int
    ) -> tuple[int, int | None]:
        calls.append(count)
        return 1, failed  # CUDA_ERROR_INVALID_VALUE

    copier._entry = entry  # type: ignore[assignment]
    plans = [copier.plan([3, 4], [0, 1]), copier.plan([9, 12], [5, 7]), copier.plan([20], [30])]
    with pytest.raises(BatchCopyError, match="CUDA_ERROR_INVALID_VALUE") as caught:
        copier.copy_planned(plans)
    assert calls == [8] and caught.value.failing_plan == plan
    assert caught.value.failing_copy == name_descriptor(failed, plans, copier.src_layout)
