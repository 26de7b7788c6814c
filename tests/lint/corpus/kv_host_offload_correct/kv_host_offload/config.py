from dataclasses import dataclass


@dataclass
class HostOffloadConfig:
    save_dir: str = "/tmp/kv_host_offload"
    num_persist_workers: int = 2
    verify_checksum: bool = False
    file_suffix: str = ".kv.pt"
