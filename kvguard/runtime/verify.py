"""Sampled verification of stored blocks: which blocks to check, and reading them back (host
copy and GPU source) to compare on the GPU."""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Callable, Sequence
from typing import Any

import torch

from kvguard.runtime.batch_copy import CacheLayout, Descriptors


class BlockSampler:
    """Picks blocks for verification so that each one is picked with probability `fraction`.

    Picks come in clusters of about `cluster` blocks: a batch of n blocks is checked at all
    with probability p = min(1, max(fraction, fraction * n / cluster)), and then each of its
    blocks with probability fraction / p (gaps between picks are geometric: O(picked) per
    batch). A check costs the verify thread and the copy thread a fixed host time however few
    blocks it compares, so clusters keep the checks few when blocks are small; with
    `cluster` 1 every batch of 1 / fraction blocks or more is checked.
    """

    def __init__(self, fraction: float, seed: int | None = None) -> None:
        if not 0.0 < fraction <= 1.0:
            raise ValueError(f"verification fraction must be in (0, 1], got {fraction}")
        self.fraction = fraction
        self._random = random.Random(seed)

    def sample(self, num_blocks: int, cluster: int = 1) -> list[int]:
        """Indices in [0, num_blocks) picked for verification, ascending."""
        fraction = self.fraction
        checked = min(1.0, max(fraction, fraction * num_blocks / max(1, cluster)))
        if not num_blocks or (checked < 1.0 and self._random.random() >= checked):
            return []
        rate = fraction / checked
        if rate >= 1.0:
            return list(range(num_blocks))
        log_miss = math.log1p(-rate)
        uniform = self._random.random
        picked = []
        position = int(math.log(1.0 - uniform()) / log_miss)
        while position < num_blocks:
            picked.append(position)
            position += 1 + int(math.log(1.0 - uniform()) / log_miss)
        return picked


def row_offsets(block_bytes: Sequence[int]) -> tuple[list[int], int]:
    """Where each cache tensor's block starts in a read-back row, and the row's size.

    A row holds one block of every tensor, back to back; the row is padded with bytes
    nothing writes to a multiple of 8, so rows compare as 64-bit words.
    """
    offsets, total = [], 0
    for size in block_bytes:
        offsets.append(total)
        total += size
    return offsets, max(8, (total + 7) // 8 * 8)


def plan_rows(
    bases: Sequence[int], block_bytes: Sequence[int], offsets: Sequence[int],
    blocks: Sequence[int], row_base: int, row_bytes: int,
) -> tuple[array[int], array[int], array[int]]:
    """Descriptors (dsts, srcs, sizes) copying block `blocks[i]` of every tensor into row i.

    Tensor t's block b starts at `bases[t] + b * block_bytes[t]`; it goes to
    `row_base + i * row_bytes + offsets[t]`. One descriptor per tensor and block.
    """
    dsts, srcs, sizes = array("q"), array("q"), array("q")
    rows = range(len(blocks))
    for base, size, offset in zip(bases, block_bytes, offsets, strict=True):
        srcs.extend([base + b * size for b in blocks])
        start = row_base + offset
        dsts.extend([start + r * row_bytes for r in rows])
        sizes.extend([size] * len(blocks))
    return dsts, srcs, sizes


class ReadBack:
    """Verification's read-back: sampled blocks' stored host copies and their GPU sources copied
    into two sets of GPU rows (laid out as `plan_rows` fills them) and compared on the GPU.

    Both reads leave the device-to-host link alone: the host copies cross the other way, and
    the sources are copied within the GPU, so a 1% sample no longer adds 1% to the stores'
    own direction (benchmarks/results/probes-h200/split_and_h2d.txt). One check at a time:
    `enqueue` may reuse the rows once the previous check's verdicts were read.
    """

    def __init__(
        self, copy: Callable[[Descriptors, str], None], stream: Any,
        gpu_layout: CacheLayout, cpu_layout: CacheLayout, device: torch.device, rows: int,
    ) -> None:
        self._copy = copy
        self._stream = stream
        self._gpu_layout = gpu_layout
        self._cpu_layout = cpu_layout
        self._device = device
        self._offsets, self._row_bytes = row_offsets(gpu_layout.block_bytes)
        self._allocate(max(1, rows))

    @property
    def rows(self) -> int:
        return int(self._verdicts.shape[0])

    def enqueue(self, src_blocks: Sequence[int], dst_blocks: Sequence[int]) -> None:
        """On the read-back stream, which already waits for the stores: host block
        `dst_blocks[i]` into host-copy row i, GPU block `src_blocks[i]` into source row i, the
        rows compared, and the verdicts copied to host memory (read them with `differing`
        once the stream has passed this point)."""
        count = len(src_blocks)
        if count > self.rows:
            self._allocate(count)
        self._copy(plan_rows(self._cpu_layout.base_addresses, self._cpu_layout.block_bytes,
                             self._offsets, dst_blocks, self._host_rows.data_ptr(),
                             self._row_bytes), "verification read-back of a host block")
        self._copy(plan_rows(self._gpu_layout.base_addresses, self._gpu_layout.block_bytes,
                             self._offsets, src_blocks, self._source_rows.data_ptr(),
                             self._row_bytes), "verification read-back of a GPU source")
        with torch.cuda.stream(self._stream):
            # Compared as 64-bit words (rows are padded to 8 bytes with zeros both sides), so a
            # NaN equals its own bits.
            host = self._host_rows[:count].view(torch.int64)
            source = self._source_rows[:count].view(torch.int64)
            differs = torch.ne(host, source).any(dim=1)
            # The rows and verdicts are made on this stream, which waits (a raw driver wait the
            # linter cannot see) on the stores' event: ordered behind its producer.
            self._verdicts[:count].copy_(differs, non_blocking=True)  # kvguard: ignore[KVG001]

    def differing(self, count: int) -> list[int]:
        """Positions whose two rows differed, from the last `enqueue` of `count` blocks."""
        found: list[int] = self._verdicts[:count].nonzero().flatten().tolist()
        return found

    def _allocate(self, rows: int) -> None:
        # Zeroed: the padding after a row's blocks is never written and must compare equal.
        shape = (rows, self._row_bytes)
        self._host_rows = torch.zeros(shape, dtype=torch.uint8, device=self._device)
        self._source_rows = torch.zeros(shape, dtype=torch.uint8, device=self._device)
        self._verdicts = torch.zeros(rows, dtype=torch.bool,
                                     pin_memory=self._device.type == "cuda")
