import logging
from dataclasses import dataclass, field
from typing import List, Optional

import torch

from hiload.cache_controller import HiCacheController

logger = logging.getLogger(__name__)


@dataclass
class Req:
    rid: str
    input_ids: List[int]
    host_hit_indices: Optional[torch.Tensor] = None
    last_host_node_id: int = -1
    prefix_indices: Optional[torch.Tensor] = None
    output_ids: List[int] = field(default_factory=list)


class Scheduler:
    def __init__(self, model_runner, tree_cache, cache_controller: HiCacheController, recv_fn):
        self.model_runner = model_runner
        self.tree_cache = tree_cache
        self.cache_controller = cache_controller
        self.recv_fn = recv_fn
        self.waiting_queue: List[Req] = []
        self.forward_stream = torch.cuda.Stream()

    def event_loop(self) -> None:
        torch.cuda.set_stream(self.forward_stream)
        while True:
            self.waiting_queue.extend(self.recv_fn())
            for node_id in self.cache_controller.loading_check():
                self.tree_cache.loading_complete(node_id)
            batch = self.get_next_batch_to_run()
            if batch:
                self.run_batch(batch)

    def get_next_batch_to_run(self) -> List[Req]:
        batch, self.waiting_queue = self.waiting_queue, []
        for req in batch:
            if req.host_hit_indices is None:
                continue
            device_indices = self.cache_controller.load(
                req.host_hit_indices, node_id=req.last_host_node_id
            )
            if device_indices is None:
                logger.debug("Device pool full, skip load-back for %s", req.rid)
                continue
            req.prefix_indices = device_indices
        self.cache_controller.start_loading()
        return batch

    def run_batch(self, batch: List[Req]) -> None:
        logits = self.model_runner.forward(
            batch, layer_done_counter=self.cache_controller.layer_done_counter
        )
        next_token_ids = self.model_runner.sample(logits, batch)
        self.tree_cache.cache_finished_reqs(batch, next_token_ids)
