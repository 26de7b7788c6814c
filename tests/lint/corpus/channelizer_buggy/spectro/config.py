from dataclasses import dataclass


@dataclass
class ChannelizerConfig:
    n_channels: int = 1024
    spectra_per_chunk: int = 256
    integrate: int = 16
    in_flight: int = 3
    threads_per_block: int = 256

    @property
    def out_rows(self) -> int:
        return self.spectra_per_chunk // self.integrate
