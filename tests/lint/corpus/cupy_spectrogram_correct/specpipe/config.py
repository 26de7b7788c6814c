from dataclasses import dataclass


@dataclass(frozen=True)
class SpectrogramConfig:
    n_fft: int = 1024
    hop_length: int = 256
    frames_per_chunk: int = 512
    n_slots: int = 3
    log_scale: bool = True

    @property
    def n_bins(self) -> int:
        return self.n_fft // 2 + 1

    @property
    def samples_per_chunk(self) -> int:
        return (self.frames_per_chunk - 1) * self.hop_length + self.n_fft
