from dataclasses import dataclass


@dataclass(frozen=True)
class AccumulatorConfig:
    num_bins: int = 1024
    lo: float = 0.0
    hi: float = 1.0
    flush_rows: int = 1 << 22
    threads_per_block: int = 256
    merge_workers: int = 1

    @property
    def inv_width(self) -> float:
        return self.num_bins / (self.hi - self.lo)
