from dataclasses import dataclass


@dataclass(frozen=True)
class MinHashConfig:
    num_perm: int = 128
    bands: int = 16
    shingle_size: int = 5
    batch_docs: int = 4096
    max_shingles: int = 1 << 22
    seed: int = 1234

    @property
    def rows_per_band(self) -> int:
        return self.num_perm // self.bands
