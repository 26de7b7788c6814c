# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
import os
from dataclasses import dataclass


@dataclass
class HostOffloadConfig:
    # Number of KV blocks held in pinned host memory per layer.
    num_host_blocks: int = 4096
    tokens_per_block: int = 32
    # Priority of the dedicated offload stream (lower is higher priority).
    offload_stream_priority: int = 0
    # Also persist the trailing, partially filled block of finished requests.
    flush_partial_blocks: bool = True
    max_offload_workers: int = 1

    @classmethod
    def from_env(cls) -> "HostOffloadConfig":
        return cls(
            num_host_blocks=int(os.environ.get("TRTLLM_HOST_KV_BLOCKS", "4096")),
            tokens_per_block=int(os.environ.get("TRTLLM_HOST_KV_TOKENS_PER_BLOCK", "32")),
            flush_partial_blocks=os.environ.get("TRTLLM_HOST_KV_FLUSH_PARTIAL", "1") == "1",
        )
