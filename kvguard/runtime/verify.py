"""Sampled verification of stored blocks: which blocks to check, and which ones differ."""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Sequence

import torch


class BlockSampler:
    """Picks each block independently with probability `fraction`, in O(picked) per batch.

    Gaps between picks are geometric, and the countdown carries across batches, so a 1%
    sampler checks one block in a hundred whether stores hold one block or a thousand.
    """

    def __init__(self, fraction: float, seed: int | None = None) -> None:
        if not 0.0 < fraction <= 1.0:
            raise ValueError(f"verification fraction must be in (0, 1], got {fraction}")
        self.fraction = fraction
        self._random = random.Random(seed)
        self._countdown = self._gap()

    def _gap(self) -> int:
        if self.fraction == 1.0:
            return 0
        uniform = 1.0 - self._random.random()  # in (0, 1]
        return int(math.log(uniform) / math.log1p(-self.fraction))

    def sample(self, num_blocks: int) -> list[int]:
        """Indices in [0, num_blocks) picked for verification, ascending."""
        picked = []
        position = self._countdown
        while position < num_blocks:
            picked.append(position)
            position += 1 + self._gap()
        self._countdown = position - num_blocks
        return picked


def _row_bytes(rows: torch.Tensor) -> torch.Tensor:
    return rows.reshape(rows.shape[0], math.prod(rows.shape[1:])).view(torch.uint8)


def differing_rows(
    sources: Sequence[torch.Tensor], copies: Sequence[torch.Tensor]
) -> torch.Tensor:
    """A bool per row (dimension 0): True where any source tensor's row differs from its copy.

    Compared byte for byte (a NaN equals its own bits; -0.0 differs from 0.0), on the tensors'
    device, with no synchronization: on a GPU the result is ready when the current stream
    gets there.
    """
    if not sources or len(sources) != len(copies):
        raise ValueError(f"need one copy per source tensor, got {len(sources)} and {len(copies)}")
    differs: torch.Tensor | None = None
    for source, copied in zip(sources, copies, strict=True):
        if source.shape != copied.shape or source.dtype != copied.dtype:
            raise ValueError(
                f"cannot compare blocks of shape {tuple(source.shape)} {source.dtype} "
                f"with {tuple(copied.shape)} {copied.dtype}"
            )
        rows = (_row_bytes(source) != _row_bytes(copied)).any(dim=1)
        differs = rows if differs is None else differs.logical_or_(rows)
    assert differs is not None
    return differs


def mismatched_rows(source_rows: torch.Tensor, copied_rows: torch.Tensor) -> list[int]:
    """Indices of the rows (blocks, dimension 0) whose bytes differ between the two tensors."""
    differs = differing_rows([source_rows], [copied_rows])
    return [int(i) for i in differs.nonzero().flatten().tolist()]


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
