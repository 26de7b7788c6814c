from dataclasses import dataclass
from typing import Any, Optional

import torch

from .constants import MAX_BEAM_WIDTH, MAX_NUM_SEQUENCES


@dataclass(kw_only=True)
class SampleStateTensors:
    new_tokens: torch.Tensor
    new_tokens_lens: torch.Tensor


@dataclass(kw_only=True)
class SampleState:
    scheduled_requests: list[Any]
    device: SampleStateTensors
    host: Optional[SampleStateTensors] = None
    copy_event: Optional[torch.cuda.Event] = None


class TorchSampler:

    @dataclass(kw_only=True)
    class Store:
        new_tokens: torch.Tensor
        new_tokens_lens: torch.Tensor

    def __init__(self,
                 max_num_sequences: int = MAX_NUM_SEQUENCES,
                 device: str = "cuda"):
        shape = (1, max_num_sequences, MAX_BEAM_WIDTH)
        self.store = self.Store(
            new_tokens=torch.zeros(shape, dtype=torch.int32, device=device),
            new_tokens_lens=torch.zeros((max_num_sequences, ),
                                        dtype=torch.int32,
                                        device=device),
        )

    def sample_async(self, scheduled_requests: list[Any],
                     model_outputs: dict[str, torch.Tensor]) -> SampleState:
        logits = model_outputs["logits"]
        seq_slots = torch.tensor([r.py_seq_slot for r in scheduled_requests],
                                 dtype=torch.int64,
                                 pin_memory=True).to(logits.device,
                                                     non_blocking=True)
        next_tokens = torch.argmax(logits, dim=-1).to(torch.int32)
        self.store.new_tokens[0, :, 0].index_copy_(0, seq_slots, next_tokens)
        self.store.new_tokens_lens.index_fill_(0, seq_slots, 1)
        return SampleState(
            scheduled_requests=scheduled_requests,
            device=SampleStateTensors(
                new_tokens=self.store.new_tokens,
                new_tokens_lens=self.store.new_tokens_lens),
        )
