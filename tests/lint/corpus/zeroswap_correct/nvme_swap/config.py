# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from dataclasses import dataclass

from .constants import AIO_ALIGNED_BYTES, DEFAULT_SWAP_THREADS


@dataclass
class OptimizerSwapConfig:
    nvme_path: str
    buffer_count: int = 4
    buffer_numel: int = 1 << 24
    thread_count: int = DEFAULT_SWAP_THREADS
    aligned_bytes: int = AIO_ALIGNED_BYTES

    def aligned_numel(self, numel: int, element_size: int) -> int:
        per = max(self.aligned_bytes // element_size, 1)
        return ((numel + per - 1) // per) * per
