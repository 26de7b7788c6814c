"""Model worker: runs the forward on its own stream, then offloads finished prefixes."""
from dataclasses import dataclass, field
from typing import List

import torch

from .offloader import DriverKVOffloader


@dataclass
class Batch:
    input_ids: torch.Tensor
    positions: torch.Tensor
    slot_mapping: torch.Tensor
    # (job id, gpu blocks, host blocks) of prefixes completed by this step
    stores: List[tuple] = field(default_factory=list)


class ModelWorker:
    def __init__(self, model, kv_caches: List[torch.Tensor], num_host_blocks: int):
        self.model = model
        self.kv_caches = kv_caches
        # kept off the default stream so that the host side can overlap with it
        self.model_stream = torch.cuda.Stream()
        self.offloader = DriverKVOffloader(kv_caches, num_host_blocks)

    @torch.inference_mode()
    def execute(self, batch: Batch) -> torch.Tensor:
        with torch.cuda.stream(self.model_stream):
            logits = self.model(batch.input_ids, batch.positions, self.kv_caches,
                                batch.slot_mapping)
            next_tokens = torch.argmax(logits[:, -1], dim=-1)
        for job_id, gpu_blocks, host_blocks in batch.stores:
            self.offloader.store(job_id, gpu_blocks, host_blocks)
        return next_tokens

    def finished_stores(self) -> List[int]:
        return self.offloader.finished()
