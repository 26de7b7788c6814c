import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List

import torch

from . import cudart
from .config import STATUS_ACTIVE, STATUS_EMPTY, STATUS_FINISHED, InferenceContextConfig
from .host_mirror import HostMetadataMirror

logger = logging.getLogger(__name__)


class DynamicInferenceContext:
    """Per-request bookkeeping for dynamic batching; finished requests are detected on the host."""

    def __init__(self, config: InferenceContextConfig) -> None:
        self.config = config
        self.device = torch.device("cuda", config.device_index)
        n = config.max_requests
        self.request_lengths = torch.zeros(n, dtype=torch.int32, device=self.device)
        self.request_max_lengths = torch.zeros(n, dtype=torch.int32, device=self.device)
        self.request_status = torch.full((n,), STATUS_EMPTY, dtype=torch.int32, device=self.device)
        self.active_request_ids: List[int] = []
        self.finished_lengths: Dict[int, int] = {}
        self.mirror = HostMetadataMirror(
            {"request_status": self.request_status, "request_lengths": self.request_lengths}
        )
        self._executor = ThreadPoolExecutor(
            max_workers=config.metadata_workers,
            thread_name_prefix="inference-bookkeeping",
            initializer=cudart.set_device,
            initargs=(config.device_index,),
        )

    def add_request(self, request_id: int, prompt_length: int, max_new_tokens: int) -> None:
        idx = len(self.active_request_ids)
        self.active_request_ids.append(request_id)
        self.request_lengths[idx] = prompt_length
        self.request_max_lengths[idx] = min(prompt_length + max_new_tokens, self.config.max_sequence_length)
        self.request_status[idx] = STATUS_ACTIVE

    def update_requests(self, new_tokens: torch.Tensor) -> List[int]:
        n = len(self.active_request_ids)
        if n == 0:
            return []
        self.request_lengths[:n] += 1
        done = (new_tokens[:n] == self.config.termination_id) | (
            self.request_lengths[:n] >= self.request_max_lengths[:n]
        )
        self.request_status[:n] = torch.where(done, STATUS_FINISHED, STATUS_ACTIVE).to(torch.int32)

        compute_stream = torch.cuda.current_stream(self.device).cuda_stream
        future = self._executor.submit(
            self.mirror.fetch, ("request_status", "request_lengths"), n, compute_stream
        )
        host = future.result()
        # expect: KVG003
        status = host["request_status"][:n].tolist()
        # expect: KVG003
        lengths = host["request_lengths"][:n].tolist()

        finished = [rid for rid, s in zip(self.active_request_ids, status) if s == STATUS_FINISHED]
        for rid, s, length in zip(self.active_request_ids, status, lengths):
            if s == STATUS_FINISHED:
                self.finished_lengths[rid] = length
        if finished:
            self._compact([i for i, s in enumerate(status) if s != STATUS_FINISHED])
            logger.info("retired %d requests, %d still active", len(finished), len(self.active_request_ids))
        return finished

    def _compact(self, keep: List[int]) -> None:
        index = torch.tensor(keep, dtype=torch.long, device=self.device)
        m = len(keep)
        for tensor in (self.request_lengths, self.request_max_lengths, self.request_status):
            tensor[:m] = tensor.index_select(0, index)
            tensor[m:] = 0
        self.active_request_ids = [self.active_request_ids[i] for i in keep]

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
