from dataclasses import dataclass


@dataclass(frozen=True)
class FeaturizerSettings:
    sample_rate: int = 16000
    n_fft: int = 512
    n_mels: int = 80
    frames_per_batch: int = 2048
    pinned_slots: int = 4
    log_floor: float = 1e-10
    io_workers: int = 1
