"""Keys of cached chunks."""

from dataclasses import dataclass


@dataclass(frozen=True)
class CacheEngineKey:
    model_name: str
    world_size: int
    worker_id: int
    chunk_hash: str

    def to_string(self) -> str:
        return f"{self.model_name}@{self.world_size}@{self.worker_id}@{self.chunk_hash}"
