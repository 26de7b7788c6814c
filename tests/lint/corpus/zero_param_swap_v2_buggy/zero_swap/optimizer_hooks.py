# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from typing import Iterable, List, Sequence

import torch

from .constants import STEP_SWAP_BUCKET_NUMEL
from .partitioned_param_swapper import AsyncPartitionedParameterSwapper


def _buckets(params: Sequence, max_numel: int) -> Iterable[List]:
    bucket, numel = [], 0
    for p in params:
        if bucket and numel + p.ds_numel > max_numel:
            yield bucket
            bucket, numel = [], 0
        bucket.append(p)
        numel += p.ds_numel
    if bucket:
        yield bucket


class ZeroInfinityStepHook:
    """Pushes updated fp16 partitions back to NVMe after each optimizer step."""

    def __init__(self, swapper: AsyncPartitionedParameterSwapper, params: Sequence,
                 bucket_numel: int = STEP_SWAP_BUCKET_NUMEL):
        self.swapper = swapper
        self.params = [p for p in params if not getattr(p, "ds_persist", False)]
        self.bucket_numel = bucket_numel

    @torch.no_grad()
    def after_step(self, fp32_partitions: Sequence[torch.Tensor]) -> None:
        for p, master in zip(self.params, fp32_partitions):
            p.ds_tensor.data.copy_(master)
        for bucket in _buckets(self.params, self.bucket_numel):
            self.swapper.swap_out_updated(bucket)
        self.swapper.synchronize_writes()
