from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RemoteBackendConfig:
    remote_url: str = "lm://localhost:65432"
    num_io_workers: int = 2
    # chunks below this size skip the pinned staging path
    inline_threshold_bytes: int = 64 * 1024
    verify_checksum: bool = False
