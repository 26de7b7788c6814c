from __future__ import annotations

import dataclasses
import os


@dataclasses.dataclass(frozen=True)
class OffloadPolicy:
    gpu_batch_size: int = 8
    # Weights live on pinned host memory and are streamed into a ring of
    # device slots; num_weight_slots layers can be resident at once.
    num_weight_slots: int = 2
    # Spill every new KV row to the disk tier.
    cache_disk: bool = True
    offload_dir: str = os.path.expanduser("~/flexcp_offload_dir")
    num_io_threads: int = 1
