from dataclasses import dataclass
from typing import Optional

import torch

from tensorrt_llm.logger import logger

from .config import PyTorchConfig


@dataclass(kw_only=True)
class SampleStateTensors:
    new_tokens: torch.Tensor
    new_tokens_lens: Optional[torch.Tensor] = None


@dataclass(kw_only=True)
class SampleState:
    scheduled_requests: object
    device: Optional[SampleStateTensors] = None
    host: Optional[SampleStateTensors] = None
    sampler_event: Optional[torch.cuda.Event] = None


class TorchSampler:
    @dataclass(frozen=True, kw_only=True)
    class Store:
        # [max_draft_len + 1, max_num_sequences, max_beam_width]
        new_tokens: torch.Tensor
        # [max_num_sequences]
        new_tokens_lens: torch.Tensor

    def __init__(self, config: PyTorchConfig):
        self.max_tokens = config.max_draft_len + 1
        self.max_num_sequences = config.max_num_sequences
        self.store = self.Store(
            new_tokens=torch.zeros(
                (self.max_tokens, config.max_num_sequences, config.max_beam_width),
                dtype=torch.int32,
                device="cuda",
            ),
            new_tokens_lens=torch.zeros(
                (config.max_num_sequences,), dtype=torch.int32, device="cuda"
            ),
        )

    def sample_async(self, scheduled_requests, model_outputs: dict) -> SampleState:
        requests = scheduled_requests.all_requests()
        seq_slots = torch.tensor(
            [r.py_seq_slot for r in requests], dtype=torch.int64, pin_memory=True
        ).to("cuda", non_blocking=True)
        logits = model_outputs["logits"]
        tokens = logits.argmax(dim=-1).to(torch.int32)
        self.store.new_tokens[0, seq_slots, 0] = tokens
        self.store.new_tokens_lens[seq_slots] = 1

        new_tokens_host = self.store.new_tokens.to("cpu", non_blocking=True)
        new_tokens_lens_host = self.store.new_tokens_lens.to("cpu", non_blocking=True)
        sampler_event = torch.cuda.Event()
        sampler_event.record()
        return SampleState(
            scheduled_requests=scheduled_requests,
            device=SampleStateTensors(
                new_tokens=self.store.new_tokens,
                new_tokens_lens=self.store.new_tokens_lens,
            ),
            host=SampleStateTensors(
                new_tokens=new_tokens_host, new_tokens_lens=new_tokens_lens_host
            ),
            sampler_event=sampler_event,
        )

    def update_requests(self, state: SampleState) -> None:
        assert state.host is not None and state.sampler_event is not None
        state.sampler_event.synchronize()
        new_tokens = state.host.new_tokens.tolist()
        new_tokens_lens = state.host.new_tokens_lens.tolist()
        for req in state.scheduled_requests.all_requests():
            slot = req.py_seq_slot
            for step in range(new_tokens_lens[slot]):
                req.add_new_token(new_tokens[step][slot][0], 0)
            req.py_decoding_iter += 1
        logger.debug(f"updated {len(state.scheduled_requests.all_requests())} requests")
