"""A prompt-cache snapshot: every layer's keys/values in pinned host memory, plus the event
that marks the last copy into it."""

from dataclasses import dataclass, field
from typing import Dict, Tuple

import torch


@dataclass
class PromptSnapshot:
    prompt_len: int
    layers: Dict[int, Tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)
    done: torch.cuda.Event = field(default_factory=torch.cuda.Event)

    def save(self, path: str) -> None:
        self.done.synchronize()
        torch.save({"prompt_len": self.prompt_len, "layers": self.layers}, path)

    def restore_into(self, cache, device) -> None:
        torch.cuda.current_stream().wait_event(self.done)
        for idx, (k, v) in sorted(self.layers.items()):
            cache.layers[idx].keys = k.to(device, non_blocking=True)
            cache.layers[idx].values = v.to(device, non_blocking=True)
