from dataclasses import dataclass


@dataclass(frozen=True)
class StreamingConfig:
    tile_rows: int = 8192
    num_slots: int = 2
    threads_per_block: int = 256

    def blocks_for(self, rows: int) -> int:
        return (rows + self.threads_per_block - 1) // self.threads_per_block
