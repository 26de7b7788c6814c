# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from dataclasses import dataclass


@dataclass
class SnapshotConfig:
    arena_bytes: int = 1 << 30
    # Use one cudaMemcpyBatchAsync when a state dict has at least this many tensors.
    batch_threshold: int = 32
    # cudaMemcpySrcAccessOrder for the batched device-to-host path.
    src_access_order: int = 2
    prefer_overlap: bool = True
    io_workers: int = 1

    @classmethod
    def from_ds_config(cls, ds_config: dict) -> "SnapshotConfig":
        raw = ds_config.get("checkpoint", {}).get("async_snapshot", {})
        return cls(**{k: v for k, v in raw.items() if k in cls.__dataclass_fields__})
