from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TransferJob:
    job_id: int
    req_id: str
    src_block_ids: list[int]
    dst_block_ids: list[int]


@dataclass
class SimpleCPUOffloadMetadata:
    load_jobs: list[TransferJob] = field(default_factory=list)
    store_jobs: list[TransferJob] = field(default_factory=list)
