"""Sampled verification of stored blocks: which blocks to check, and which ones differ."""

from __future__ import annotations

import math
import random

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


def mismatched_rows(source_rows: torch.Tensor, copied_rows: torch.Tensor) -> list[int]:
    """Indices of the rows (blocks, dimension 0) whose bytes differ between the two tensors."""
    if source_rows.shape != copied_rows.shape or source_rows.dtype != copied_rows.dtype:
        raise ValueError(
            f"cannot compare blocks of shape {tuple(source_rows.shape)} {source_rows.dtype} "
            f"with {tuple(copied_rows.shape)} {copied_rows.dtype}"
        )
    if torch.equal(source_rows, copied_rows):  # the common case, at memcmp speed
        return []
    as_bytes = source_rows.reshape(source_rows.shape[0], -1).view(torch.uint8)
    copied_bytes = copied_rows.reshape(copied_rows.shape[0], -1).view(torch.uint8)
    differs = (as_bytes != copied_bytes).any(dim=1)
    return [int(i) for i in differs.nonzero().flatten()]
