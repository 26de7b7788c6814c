import enum
from dataclasses import dataclass

# request id (16 bytes), chunk index, number of chunks, payload bytes
CHUNK_HEADER_FMT = "!16sIIQ"


class TransferStatus(enum.Enum):
    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"


@dataclass(frozen=True)
class SenderConfig:
    peer_host: str
    peer_port: int
    chunk_bytes: int = 16 << 20
    num_staging_buffers: int = 8
    send_timeout_s: float = 30.0
    acquire_timeout_s: float = 10.0
