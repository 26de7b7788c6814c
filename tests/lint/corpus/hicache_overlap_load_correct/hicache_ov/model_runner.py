from dataclasses import dataclass

import torch


@dataclass
class ForwardBatch:
    input_ids: torch.Tensor
    positions: torch.Tensor
    out_cache_loc: torch.Tensor
    reqs: list


class ModelRunner:
    def __init__(self, model, token_to_kv_pool):
        self.model = model
        self.token_to_kv_pool = token_to_kv_pool
        self._forward_stream = torch.cuda.Stream()

    @property
    def forward_stream(self) -> torch.cuda.Stream:
        return self._forward_stream

    def forward(self, batch: ForwardBatch):
        # inputs are staged on the scheduler's stream
        self._forward_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._forward_stream):
            logits = self.model(batch.input_ids, batch.positions, self.token_to_kv_pool,
                                batch.out_cache_loc)
            next_token_ids = torch.argmax(logits, dim=-1)
            next_token_ids_cpu = next_token_ids.to("cpu", non_blocking=True)
            copy_done = torch.cuda.Event()
            copy_done.record()
        return next_token_ids_cpu, copy_done
