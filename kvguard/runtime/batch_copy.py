"""Block copies between a GPU KV tensor set and a pinned host tensor set, one driver call a batch.

Each cache is a mapping of name to tensor whose first dimension is the block index (the shape
vLLM's SimpleCPUOffloadWorker hands its copy backend). Adjacent blocks become one descriptor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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
    """One descriptor per (tensor, run of adjacent blocks), tensor-major."""

    dst_addresses: torch.Tensor  # int64, one per descriptor
    src_addresses: torch.Tensor
    sizes: torch.Tensor
    run_src_starts: torch.Tensor  # first source block of each run
    run_dst_starts: torch.Tensor
    run_lengths: torch.Tensor

    @property
    def count(self) -> int:
        return int(self.sizes.numel())

    def describe(self, index: int, layout: CacheLayout) -> str:
        """Name descriptor `index`: which tensor and which blocks it copies."""
        runs = int(self.run_lengths.numel())
        tensor, run = divmod(index, runs)
        src0, dst0 = int(self.run_src_starts[run]), int(self.run_dst_starts[run])
        length = int(self.run_lengths[run])
        return (
            f"descriptor {index}: tensor {layout.names[tensor]!r}, source blocks "
            f"{src0}..{src0 + length - 1} -> destination blocks {dst0}..{dst0 + length - 1} "
            f"({int(self.sizes[index])} bytes from {int(self.src_addresses[index]):#x} to "
            f"{int(self.dst_addresses[index]):#x})"
        )


def _check_blocks(role: str, blocks: torch.Tensor, layout: CacheLayout) -> None:
    limit = min(layout.num_blocks)
    low, high = int(blocks.min()), int(blocks.max())
    if low < 0 or high >= limit:
        bad = low if low < 0 else high
        raise IndexError(f"{role} block {bad} is out of range: the {role} cache has {limit} blocks")


def plan_block_copies(
    src: CacheLayout, dst: CacheLayout, src_blocks: Sequence[int], dst_blocks: Sequence[int]
) -> CopyPlan:
    """Turn block id lists into driver descriptors, merging runs adjacent on both sides."""
    if len(src_blocks) != len(dst_blocks):
        raise ValueError(
            f"{len(src_blocks)} source blocks but {len(dst_blocks)} destination blocks; "
            "each source block needs exactly one destination block"
        )
    if not src_blocks:
        raise ValueError("no blocks to copy")
    ids = torch.tensor([list(src_blocks), list(dst_blocks)], dtype=torch.int64)
    _check_blocks("source", ids[0], src)
    _check_blocks("destination", ids[1], dst)
    breaks = (ids[:, 1:] != ids[:, :-1] + 1).any(dim=0)
    starts = torch.cat([torch.zeros(1, dtype=torch.int64), breaks.nonzero().flatten() + 1])
    ends = torch.cat([starts[1:], torch.tensor([ids.shape[1]])])
    lengths = ends - starts
    run_ids = ids[:, starts]
    block_bytes = torch.tensor(src.block_bytes, dtype=torch.int64).unsqueeze(1)
    src_base = torch.tensor(src.base_addresses, dtype=torch.int64).unsqueeze(1)
    dst_base = torch.tensor(dst.base_addresses, dtype=torch.int64).unsqueeze(1)
    return CopyPlan(
        dst_addresses=(dst_base + run_ids[1] * block_bytes).flatten(),
        src_addresses=(src_base + run_ids[0] * block_bytes).flatten(),
        sizes=(block_bytes * lengths).flatten(),
        run_src_starts=run_ids[0],
        run_dst_starts=run_ids[1],
        run_lengths=lengths,
    )


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
        self._entry = resolve_batch_memcpy()
        self._attributes = CUmemcpyAttributes(srcAccessOrder=int(order))

    @property
    def source_order(self) -> SourceOrder:
        """The order in the attributes the driver is given, read back from them."""
        return SourceOrder(self._attributes.srcAccessOrder)

    @property
    def is_store(self) -> bool:
        return self.source_kind is MemoryKind.DEVICE

    def copy(self, src_blocks: Sequence[int], dst_blocks: Sequence[int]) -> None:
        """Enqueue the copies on the stream; raise BatchCopyError naming the failing copy."""
        plan = plan_block_copies(self.src_layout, self.dst_layout, src_blocks, dst_blocks)
        code, failed = self._entry(
            plan.dst_addresses.data_ptr(), plan.src_addresses.data_ptr(), plan.sizes.data_ptr(),
            plan.count, self._attributes, self.stream.cuda_stream,
        )
        if code != 0:
            name, detail = result_name(code)
            where = (
                plan.describe(failed, self.src_layout)
                if failed is not None and failed < plan.count
                else f"the driver did not name one of the {plan.count} descriptors"
            )
            raise BatchCopyError(code, name, detail, where)
