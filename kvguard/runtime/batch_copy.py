"""Block copies between a GPU KV tensor set and a pinned host tensor set, one driver call a batch.

Each cache is a mapping of name to tensor whose first dimension is the block index (the shape
vLLM's SimpleCPUOffloadWorker hands its copy backend). Adjacent blocks become one descriptor.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from kvguard.runtime.driver import CUmemcpyAttributes, resolve_batch_memcpy, result_name
from kvguard.runtime.errors import BatchCopyError
from kvguard.runtime.order import MemoryKind, SourceOrder, check_source_order, default_source_order


@dataclass(frozen=True)
class CacheLayout:
    """Where each tensor of a cache set starts, how many bytes a block has and how many blocks."""

    names: tuple[str, ...]
    base_addresses: tuple[int, ...]
    block_bytes: tuple[int, ...]
    num_blocks: tuple[int, ...]

    @classmethod
    def of(cls, caches: Mapping[str, torch.Tensor]) -> CacheLayout:
        if not caches:
            raise ValueError("the cache set is empty: pass at least one tensor per side")
        for name, tensor in caches.items():
            if tensor.dim() < 1 or not tensor.is_contiguous():
                raise ValueError(
                    f"cache {name!r} must be a contiguous tensor whose first dimension is the "
                    f"block index (got shape {tuple(tensor.shape)}, strides {tensor.stride()}); "
                    "view it as [num_blocks, -1] first"
                )
        return cls(
            names=tuple(caches),
            base_addresses=tuple(t.data_ptr() for t in caches.values()),
            block_bytes=tuple(t.stride(0) * t.element_size() for t in caches.values()),
            num_blocks=tuple(t.shape[0] for t in caches.values()),
        )


def check_pairing(src: CacheLayout, dst: CacheLayout) -> None:
    """Both sides must name the same tensors in the same order with equal block sizes."""
    if src.names != dst.names:
        raise ValueError(
            f"source and destination caches name different tensors: {list(src.names)} vs "
            f"{list(dst.names)}; build both from the same keys in the same order"
        )
    for name, src_bytes, dst_bytes in zip(src.names, src.block_bytes, dst.block_bytes, strict=True):
        if src_bytes != dst_bytes:
            raise ValueError(
                f"cache {name!r}: a source block has {src_bytes} bytes and a destination "
                f"block {dst_bytes}; both sides need the same block layout"
            )


@dataclass(frozen=True)
class CopyPlan:
    """One descriptor per (tensor, run of adjacent blocks), tensor-major.

    The descriptor arrays are `array.array("q")` (signed 64-bit, the driver reads them as
    unsigned): no tensor operation per copy, and `pointers()` gives the addresses the driver
    call takes. The block lists are kept as requested; `describe()` finds the runs from them
    only when a copy failed.
    """

    dst_addresses: array[int]  # one per descriptor
    src_addresses: array[int]
    sizes: array[int]
    src_blocks: Sequence[int]
    dst_blocks: Sequence[int]

    @property
    def count(self) -> int:
        return len(self.sizes)

    def pointers(self) -> tuple[int, int, int]:
        """Host addresses of the dst, src and size arrays (valid while the plan lives)."""
        return (
            self.dst_addresses.buffer_info()[0],
            self.src_addresses.buffer_info()[0],
            self.sizes.buffer_info()[0],
        )

    def describe(self, index: int, layout: CacheLayout, offset: int = 0) -> str:
        """Name descriptor `index`: which tensor and which blocks it copies (`offset`: where
        the plan's descriptors start in the driver call, for the number shown)."""
        src_starts, dst_starts, lengths = _runs(
            [int(b) for b in self.src_blocks], [int(b) for b in self.dst_blocks]
        )
        tensor, run = divmod(index, len(lengths))
        src0, dst0, length = src_starts[run], dst_starts[run], lengths[run]
        return (
            f"descriptor {offset + index}: tensor {layout.names[tensor]!r}, source blocks "
            f"{src0}..{src0 + length - 1} -> destination blocks {dst0}..{dst0 + length - 1} "
            f"({int(self.sizes[index])} bytes from {int(self.src_addresses[index]):#x} to "
            f"{int(self.dst_addresses[index]):#x})"
        )


def join_descriptors(plans: Sequence[CopyPlan]) -> tuple[array[int], array[int], array[int]]:
    """The plans' descriptors (dsts, srcs, sizes) one after the other: one driver call's arrays."""
    dsts, srcs, sizes = array("q"), array("q"), array("q")
    for plan in plans:
        dsts += plan.dst_addresses
        srcs += plan.src_addresses
        sizes += plan.sizes
    return dsts, srcs, sizes


def name_descriptor(failed: int | None, plans: Sequence[CopyPlan], layout: CacheLayout) -> str:
    """Which copy descriptor `failed` of a call made from `plans` is; when the driver named
    none (the CUDA 13 entry point reports no index), what the whole call copied."""
    offset = 0
    for plan in plans:
        if failed is not None and offset <= failed < offset + plan.count:
            return plan.describe(failed - offset, layout, offset)
        offset += plan.count
    if failed is not None:
        return f"the driver named descriptor {failed}, but the call had {offset}"
    if not offset:
        return "the call had no descriptors"
    plans = [plan for plan in plans if plan.count]
    blocks = [int(block) for plan in plans for block in plan.src_blocks]
    more = f" and {len(blocks) - 8} more" if len(blocks) > 8 else ""
    last = plans[-1]
    ends = plans[0].describe(0, layout)
    if offset > 1:
        ends += f"; ...; {last.describe(last.count - 1, layout, offset - last.count)}"
    return (
        f"the driver did not say which of the call's {offset} descriptors failed; the call "
        f"copied source blocks {blocks[:8]}{more} ({ends})"
    )


def plan_of(failed: int | None, plans: Sequence[CopyPlan]) -> int | None:
    """Which of `plans` holds descriptor `failed` of a call made from them (None: the driver
    named no descriptor, or one the call did not have)."""
    if failed is None:
        return None
    offset = 0
    for index, plan in enumerate(plans):
        offset += plan.count
        if failed < offset:
            return index
    return None


def _check_blocks(role: str, blocks: Sequence[int], layout: CacheLayout) -> None:
    limit = min(layout.num_blocks)
    low, high = min(blocks), max(blocks)
    if low < 0 or high >= limit:
        bad = low if low < 0 else high
        raise IndexError(f"{role} block {bad} is out of range: the {role} cache has {limit} blocks")


def _runs(src_blocks: Sequence[int], dst_blocks: Sequence[int]) -> tuple[list[int], list[int], list[int]]:
    """Split block pairs into runs adjacent on both sides: (src starts, dst starts, lengths)."""
    src_starts: list[int] = []
    dst_starts: list[int] = []
    lengths: list[int] = []
    last_src = last_dst = -2
    length = 0
    for src, dst in zip(src_blocks, dst_blocks, strict=True):
        if src == last_src + 1 and dst == last_dst + 1:
            length += 1
        else:
            if length:
                lengths.append(length)
            src_starts.append(src)
            dst_starts.append(dst)
            length = 1
        last_src, last_dst = src, dst
    lengths.append(length)
    return src_starts, dst_starts, lengths


def plan_block_copies(
    src: CacheLayout, dst: CacheLayout, src_blocks: Sequence[int], dst_blocks: Sequence[int]
) -> CopyPlan:
    """Turn block id lists into driver descriptors, merging runs adjacent on both sides."""
    count = len(src_blocks)
    if count != len(dst_blocks):
        raise ValueError(
            f"{count} source blocks but {len(dst_blocks)} destination blocks; "
            "each source block needs exactly one destination block"
        )
    if not count:
        raise ValueError("no blocks to copy")
    if _np is not None and (count + 2) * len(src.names) >= _NUMPY_FROM:
        return _plan_numpy(src, dst, src_blocks, dst_blocks)
    src_ids = list(src_blocks) if type(src_blocks[0]) is int else [int(b) for b in src_blocks]
    dst_ids = list(dst_blocks) if type(dst_blocks[0]) is int else [int(b) for b in dst_blocks]
    _check_blocks("source", src_ids, src)
    _check_blocks("destination", dst_ids, dst)
    if count == 1:
        src_starts, dst_starts, lengths = src_ids, dst_ids, [1]
    else:
        src_starts, dst_starts, lengths = _runs(src_ids, dst_ids)
    dst_addresses, src_addresses, sizes = array("q"), array("q"), array("q")
    for src_base, dst_base, block in zip(
        src.base_addresses, dst.base_addresses, src.block_bytes, strict=True
    ):
        src_addresses.extend([src_base + b * block for b in src_starts])
        dst_addresses.extend([dst_base + b * block for b in dst_starts])
        sizes.extend([block * n for n in lengths])
    return CopyPlan(dst_addresses, src_addresses, sizes, src_blocks, dst_blocks)


# Large batches are planned with numpy when it is installed (torch's wheels bring it; kvguard
# does not require it): a few vector operations instead of a Python loop per block.
_np: Any
try:
    import numpy as _np
except ImportError:  # pragma: no cover - the plain-Python planner covers every size
    _np = None

# (Blocks + 2) times tensors, as the plain loop costs per block and tensor and per tensor: below
# this it is faster than numpy's fixed cost (about 17 µs). benchmarks/planner_speed.py: a vLLM
# store of 8 blocks over 32 layers plans in 22 µs with numpy, 86 µs without.
_NUMPY_FROM = 48


def _as_array(values: Any) -> array[int]:
    out = array("q")
    out.frombytes(values.astype(_np.int64, copy=False).tobytes())
    return out


def _plan_numpy(
    src: CacheLayout, dst: CacheLayout, src_blocks: Sequence[int], dst_blocks: Sequence[int]
) -> CopyPlan:
    count = len(src_blocks)
    src_ids = _np.fromiter(src_blocks, _np.int64, count)
    dst_ids = _np.fromiter(dst_blocks, _np.int64, count)
    _check_blocks("source", (int(src_ids.min()), int(src_ids.max())), src)
    _check_blocks("destination", (int(dst_ids.min()), int(dst_ids.max())), dst)
    block = _np.array(src.block_bytes, dtype=_np.int64)[:, None]
    adjacent = (_np.diff(src_ids) == 1) & (_np.diff(dst_ids) == 1)
    if adjacent.any():
        starts = _np.concatenate(([0], _np.flatnonzero(~adjacent) + 1))
        sizes = block * _np.diff(starts, append=count)
        src_ids, dst_ids = src_ids[starts], dst_ids[starts]
    else:  # no two blocks adjacent on both sides (the usual case): a descriptor per block
        sizes = _np.repeat(block, count, axis=1)
    src_base = _np.array(src.base_addresses, dtype=_np.int64)[:, None]
    dst_base = _np.array(dst.base_addresses, dtype=_np.int64)[:, None]
    return CopyPlan(
        _as_array((dst_base + dst_ids * block).ravel()),
        _as_array((src_base + src_ids * block).ravel()),
        _as_array(sizes.ravel()),
        src_blocks,
        dst_blocks,
    )


_ORDERS = {int(order): order for order in SourceOrder}  # a dict lookup, per group checked


def memory_kind(caches: Mapping[str, torch.Tensor]) -> MemoryKind:
    """DEVICE for CUDA tensors, PINNED_HOST for pinned CPU tensors; anything else is refused."""
    kinds = set()
    for name, tensor in caches.items():
        if tensor.is_cuda:
            kinds.add(MemoryKind.DEVICE)
        elif tensor.device.type == "cpu" and tensor.is_pinned():
            kinds.add(MemoryKind.PINNED_HOST)
        else:
            raise ValueError(
                f"cache {name!r} is on {tensor.device} and not pinned: host caches must be "
                "pinned (tensor.pin_memory() or cudaHostRegister) so copies can be asynchronous"
            )
    if len(kinds) != 1:
        raise ValueError("a cache set mixes GPU and host tensors; keep each side in one place")
    return kinds.pop()


class BatchCopier:
    """Copies blocks from one cache set to the other on one stream, one cuMemcpyBatchAsync a batch.

    The source access order is fixed at construction: by default STREAM when the source is GPU
    memory and ANY when it is pinned host memory; anything but STREAM on a GPU source is refused.
    """

    def __init__(
        self,
        src_caches: Mapping[str, torch.Tensor],
        dst_caches: Mapping[str, torch.Tensor],
        stream: torch.cuda.Stream,
        source_order: SourceOrder | None = None,
    ) -> None:
        self.source_kind = memory_kind(src_caches)
        if memory_kind(dst_caches) is self.source_kind:
            raise ValueError(
                "BatchCopier copies between GPU memory and pinned host memory; both cache "
                f"sets are {self.source_kind.value}"
            )
        order = default_source_order(self.source_kind) if source_order is None else source_order
        check_source_order(self.source_kind, order)
        if stream.cuda_stream == 0:
            raise ValueError(
                "cuMemcpyBatchAsync rejects the legacy default stream; pass a torch.cuda.Stream()"
            )
        self.src_layout = CacheLayout.of(src_caches)
        self.dst_layout = CacheLayout.of(dst_caches)
        check_pairing(self.src_layout, self.dst_layout)
        self.stream = stream
        self._stream_handle = stream.cuda_stream
        self._entry = resolve_batch_memcpy()
        self._attributes = CUmemcpyAttributes(srcAccessOrder=int(order))

    @property
    def source_order(self) -> SourceOrder:
        """The order in the attributes the driver is given, read back from them."""
        value = self._attributes.srcAccessOrder
        order = _ORDERS.get(value)
        return SourceOrder(value) if order is None else order

    @property
    def is_store(self) -> bool:
        return self.source_kind is MemoryKind.DEVICE

    def plan(self, src_blocks: Sequence[int], dst_blocks: Sequence[int]) -> CopyPlan:
        """The descriptors copying `src_blocks` to `dst_blocks` (ValueError or IndexError on
        bad block lists); `copy_planned` issues them."""
        return plan_block_copies(self.src_layout, self.dst_layout, src_blocks, dst_blocks)

    def copy(self, src_blocks: Sequence[int], dst_blocks: Sequence[int]) -> None:
        """Enqueue the copies on the stream; raise BatchCopyError naming the failing copy."""
        self.copy_planned([self.plan(src_blocks, dst_blocks)])

    def copy_planned(self, plans: Sequence[CopyPlan]) -> None:
        """`copy` for blocks planned already (by `plan`, possibly on another thread): every
        plan's descriptors in one driver call."""
        if len(plans) == 1:
            dsts, srcs, sizes = plans[0].pointers()
            count = plans[0].count
        else:
            joined = join_descriptors(plans)  # held until the driver has read it
            dsts, srcs, sizes = (column.buffer_info()[0] for column in joined)
            count = len(joined[2])
        code, failed = self._entry(dsts, srcs, sizes, count, self._attributes, self._stream_handle)
        if code != 0:
            name, detail = result_name(code)
            raise BatchCopyError(
                code,
                name,
                detail,
                name_descriptor(failed, plans, self.src_layout),
                plan_of(failed, plans),
            )


# One driver call for blocks through a copier: (copier, src_blocks, dst_blocks, plans), `plans`
# being one plan per request when some were made already (else the blocks are planned as one
# list). The backend takes one as a constructor argument; tests wrap `copy_blocks`.
CopyCall = Callable[[BatchCopier, Sequence[int], Sequence[int], list[CopyPlan] | None], None]


def copy_blocks(
    copier: BatchCopier,
    src_blocks: Sequence[int],
    dst_blocks: Sequence[int],
    plans: list[CopyPlan] | None = None,
) -> None:
    if plans is None:
        copier.copy(src_blocks, dst_blocks)
    else:
        copier.copy_planned(plans)
