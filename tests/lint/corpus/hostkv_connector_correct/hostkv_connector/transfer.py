# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass, field
from typing import List, Sequence, Tuple

import torch

from tensorrt_llm.logger import logger

# (device block id, host block id)
BlockPair = Tuple[int, int]


@dataclass
class LayerSaveJob:
    layer_idx: int
    pairs: List[BlockPair]
    ready_event: torch.cuda.Event
    done_event: torch.cuda.Event = field(default_factory=torch.cuda.Event)


def copy_blocks_d2h(host_layer: torch.Tensor, device_layer: torch.Tensor,
                    pairs: Sequence[BlockPair], stream: torch.cuda.Stream) -> None:
    with torch.cuda.stream(stream):
        for device_block, host_block in pairs:
            host_layer[host_block].copy_(device_layer[device_block], non_blocking=True)


def run_layer_save(job: LayerSaveJob, host_pool: torch.Tensor, kv_cache: torch.Tensor,
                   stream: torch.cuda.Stream) -> LayerSaveJob:
    stream.wait_event(job.ready_event)
    copy_blocks_d2h(host_pool[job.layer_idx], kv_cache[job.layer_idx], job.pairs, stream)
    job.done_event.record(stream)
    logger.debug(f"offload: queued {len(job.pairs)} blocks of layer {job.layer_idx}")
    return job
