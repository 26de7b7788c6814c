# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass


@dataclass(frozen=True)
class PrefetchConfig:
    num_slots: int = 2
    max_blocks_per_slot: int = 256
    num_loader_threads: int = 1
    thread_name_prefix: str = "kv-prefetch"
