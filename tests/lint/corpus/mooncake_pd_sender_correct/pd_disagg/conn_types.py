from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from .staging import StagingBuffer


class KVPoll(enum.IntEnum):
    Failed = 0
    Bootstrapping = 1
    WaitingForInput = 2
    Transferring = 3
    Success = 4


@dataclass
class KVArgs:
    engine_rank: int
    gpu_id: int
    # One entry per layer (K and V interleaved): base address and bytes per page.
    kv_data_ptrs: list[int] = field(default_factory=list)
    kv_item_lens: list[int] = field(default_factory=list)
    # cudaStream_t the prefill forward pass is launched on.
    compute_stream: int = 0
    verify_staging: bool = False


@dataclass
class TransferInfo:
    room: int
    endpoint: str
    mooncake_session_id: str
    dst_staging_ptr: int
    dst_staging_len: int


@dataclass
class SendRequest:
    room: int
    page_ids: list[int]
    staging: "StagingBuffer"
    copy_event: object  # cudart.cudaEvent_t
    nbytes: int
    digest: Optional[str] = None

