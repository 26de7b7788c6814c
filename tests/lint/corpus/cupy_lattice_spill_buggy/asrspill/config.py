"""Settings of the streaming decoder and of the lattice spill."""
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SpillConfig:
    feat_dim: int = 80
    vocab: int = 4096
    chunk_frames: int = 64
    # device lattice slots: chunk i is written to slot i % ring while older chunks drain
    ring: int = 3
    normalize: bool = True
    out_dir: Path = Path("lattices")

    @property
    def chunk_elems(self) -> int:
        return self.chunk_frames * self.vocab
