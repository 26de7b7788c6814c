# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from typing import List, Sequence

import torch

from deepspeed.utils import logger

_ALIGN = 512


class PinnedStagingArena(object):
    """One page-locked host region carved into per-tensor byte views."""

    def __init__(self, nbytes: int):
        self.buffer = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
        logger.info(f"PinnedStagingArena: {nbytes / 2**20:.1f} MiB")

    def carve(self, sizes: Sequence[int]) -> List[torch.Tensor]:
        views, offset = [], 0
        for size in sizes:
            if offset + size > self.buffer.numel():
                raise RuntimeError("snapshot does not fit the staging arena")
            views.append(self.buffer.narrow(0, offset, size))
            offset += (size + _ALIGN - 1) // _ALIGN * _ALIGN
        return views
