from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ExportConfig:
    dim: int = 768
    max_batch: int = 256
    shard_dir: Path = Path("embeddings")
    rows_per_shard: int = 1 << 16
