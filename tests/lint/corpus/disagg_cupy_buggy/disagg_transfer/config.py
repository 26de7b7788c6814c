from dataclasses import dataclass

# wire format version of the per-request header
KV_WIRE_VERSION = 2
# staging buffers shared by all in-flight context responses
NUM_STAGING_BUFFERS = 2
SEND_QUEUE_POLL_S = 0.5


@dataclass(frozen=True)
class CacheTransceiverConfig:
    backend: str = "tcp"
    max_blocks_per_request: int = 512
    verify_checksum: bool = False
    send_timeout_s: float = 30.0
