"""Sampled verification of stored blocks: which blocks to check, where their GPU sources are
staged, and which ones differ."""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import random
import threading
from array import array
from collections import deque
from collections.abc import Sequence

import torch


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
    """Where each cache tensor's block starts in a staging row, and the row's size.

    A staging row holds one block of every tensor, back to back; the row is padded with bytes
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


# memcmp releases the GIL (CFUNCTYPE): a large block compares while the copy thread runs.
_memcmp = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)(
    ("memcmp", ctypes.CDLL(ctypes.util.find_library("c")))
)


def staged_rows_differing(
    row_base: int, row_bytes: int, offsets: Sequence[int],
    host_bases: Sequence[int], block_bytes: Sequence[int], host_blocks: Sequence[int],
) -> list[int]:
    """Positions i whose staged row i (laid out as `plan_rows` fills it) differs from host block
    `host_blocks[i]` in any tensor; compared byte for byte, so a NaN equals its own bits."""
    differing = []
    for row, block in enumerate(host_blocks):
        start = row_base + row * row_bytes
        for base, size, offset in zip(host_bases, block_bytes, offsets, strict=True):
            if _memcmp(start + offset, base + block * size, size):
                differing.append(row)
                break
    return differing


class StagingRing:
    """Host rows for staged GPU sources: taken by the copy thread, given back oldest first by
    the verify thread, so held rows form one run around a ring.

    A take waits while there is no room. One larger than the ring (a store with more sampled
    blocks than it has rows) waits until every row is back, then grows the ring to fit.
    """

    def __init__(self, rows: int, row_bytes: int, pinned: bool) -> None:
        self._row_bytes = row_bytes
        self._pinned = pinned
        self._allocate(rows)
        self._held: deque[tuple[int, int]] = deque()  # (first row, rows), oldest first
        self._room = threading.Condition()

    @property
    def rows(self) -> int:
        return self._total

    def address(self, start: int) -> int:
        """Host address of row `start`."""
        return self._base + start * self._row_bytes

    def take(self, count: int) -> int:
        """First of `count` consecutive rows, now held; blocks until there is room."""
        with self._room:
            while True:
                start = self._free_start(count)
                if start is not None:
                    self._held.append((start, count))
                    return start
                if count > self._total and not self._held:
                    self._allocate(count)
                    continue
                self._room.wait()

    def give_back(self) -> None:
        """Return the oldest rows still held."""
        with self._room:
            self._held.popleft()
            self._room.notify()

    def _free_start(self, count: int) -> int | None:
        if count > self._total:
            return None
        if not self._held:
            return 0
        first = self._held[0][0]
        last_start, last_count = self._held[-1]
        end = last_start + last_count
        if last_start >= first:  # held rows run from `first` to `end` without wrapping
            if self._total - end >= count:
                return end
            return 0 if first >= count else None
        return end if first - end >= count else None  # wrapped: free rows lie in between

    def _allocate(self, rows: int) -> None:
        self._rows = torch.empty((rows, self._row_bytes), dtype=torch.uint8,
                                 pin_memory=self._pinned)
        self._base = self._rows.data_ptr()
        self._total = rows
