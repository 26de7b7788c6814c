from dataclasses import dataclass


@dataclass
class SpectrometerConfig:
    n_channels: int = 4096
    spectra_per_chunk: int = 256
    n_slots: int = 3
    window: str = "hann"

    @property
    def samples_per_chunk(self) -> int:
        return self.spectra_per_chunk * 2 * self.n_channels

    @property
    def n_out(self) -> int:
        return self.n_channels + 1
