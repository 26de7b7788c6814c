from dataclasses import dataclass


@dataclass(frozen=True)
class CacheTransceiverConfig:
    max_tokens_in_buffer: int = 8192
    staging_bytes: int = 256 << 20
    overlap_transfer: bool = True
    send_timeout_s: float = 30.0
