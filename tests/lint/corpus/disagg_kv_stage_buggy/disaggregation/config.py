from __future__ import annotations

from dataclasses import dataclass

# cudaMemcpyKind
CUDA_MEMCPY_HOST_TO_DEVICE = 1
CUDA_MEMCPY_DEVICE_TO_HOST = 2
CUDA_STREAM_NON_BLOCKING = 0x1
CUDA_EVENT_DISABLE_TIMING = 0x2


@dataclass
class CacheTransceiverConfig:
    backend: str = "TCP"
    max_tokens_in_buffer: int = 8192
    num_staging_buffers: int = 4
    send_workers: int = 1
