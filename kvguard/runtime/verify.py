"""Sampled verification of stored blocks: which blocks to check, and the pairs of memory ranges
whose compare checks them (compare.py compares them on the GPU)."""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Sequence


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


def plan_pairs(
    src_bases: Sequence[int],
    dst_bases: Sequence[int],
    block_bytes: Sequence[int],
    src_blocks: Sequence[int],
    dst_blocks: Sequence[int],
) -> tuple[array[int], array[int], array[int]]:
    """The pairs (srcs, dsts, sizes) comparing block `src_blocks[i]` of every tensor with block
    `dst_blocks[i]` of the same tensor, tensor-major: pair `t * len(src_blocks) + i` is tensor
    t's block of sample i.

    Tensor t's block b starts at `src_bases[t] + b * block_bytes[t]` on one side and at
    `dst_bases[t] + b * block_bytes[t]` on the other.
    """
    srcs, dsts, sizes = array("q"), array("q"), array("q")
    for src_base, dst_base, size in zip(src_bases, dst_bases, block_bytes, strict=True):
        srcs.extend([src_base + b * size for b in src_blocks])
        dsts.extend([dst_base + b * size for b in dst_blocks])
        sizes.extend([size] * len(src_blocks))
    return srcs, dsts, sizes
