from dataclasses import dataclass
from enum import IntEnum

TRANSFER_CHUNK_BLOCKS = 32
SEND_QUEUE_MAXSIZE = 256
# request id, first block offset, number of blocks in the chunk
CHUNK_HEADER_FORMAT = "!QII"


class DisaggState(IntEnum):
    CONTEXT_INIT = 0
    TRANS_IN_PROGRESS = 1
    TRANS_COMPLETE = 2
    TRANS_ERROR = 3


@dataclass
class CacheTransceiverConfig:
    backend: str = "TCP"
    num_staging_buffers: int = 4
    max_tokens_in_buffer: int = 8192
    device_id: int = 0
