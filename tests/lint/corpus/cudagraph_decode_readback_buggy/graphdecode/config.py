from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GraphRunnerConfig:
    max_batch_size: int = 32
    eos_token_id: int = 2
    warmup_iters: int = 3
    device_index: int = 0

    @property
    def device(self) -> str:
        return f"cuda:{self.device_index}"
