# SPDX-License-Identifier: Apache-2.0
# Standard
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple
import logging

# Third Party
import torch

# First Party
from lmc_retrieve.config import RetrieverConfig
from lmc_retrieve.device import compute_stream, create_load_stream, use_stream
from lmc_retrieve.loader import load_chunks, load_positions

logger = logging.getLogger(__name__)


@dataclass
class RetrieveRequest:
    req_id: str
    keys: List[str]
    token_spans: List[Tuple[int, int]]
    positions: torch.Tensor  # pinned host tensor


@dataclass
class RetrieveHandle:
    req_id: str
    done: Optional[torch.Event] = None
    positions: Optional[torch.Tensor] = None
    future: Optional[Future] = None

    def wait_on_compute(self, device: torch.device) -> torch.Tensor:
        if self.future is not None:
            self.done, self.positions = self.future.result()
            self.future = None
        compute_stream(device).wait_event(self.done)
        return self.positions


class AsyncKVRetriever:
    def __init__(self, config: RetrieverConfig, kv_layers: List[torch.Tensor], hot_cache: Dict[str, torch.Tensor]):
        self.config = config
        self.device = config.device
        self.kv_layers = kv_layers
        self.hot_cache = hot_cache
        self.load_stream = create_load_stream(self.device)
        self._executor = ThreadPoolExecutor(max_workers=config.max_workers, thread_name_prefix="lmc-retrieve")

    def retrieve(self, request: RetrieveRequest) -> RetrieveHandle:
        host_chunks = [self.hot_cache[k] for k in request.keys]
        fence = compute_stream(self.device).record_event()

        if len(host_chunks) <= self.config.inline_chunk_limit:
            with use_stream(self.load_stream):
                load_chunks(self.kv_layers, host_chunks, request.token_spans)
                positions = load_positions(request.positions, self.device)
                done = self.load_stream.record_event()
            return RetrieveHandle(request.req_id, done=done, positions=positions)

        future = self._executor.submit(
            self._load_worker, host_chunks, request.token_spans, request.positions, fence
        )
        return RetrieveHandle(request.req_id, future=future)

    def _load_worker(self, host_chunks, token_spans, host_positions, fence) -> Tuple[torch.Event, torch.Tensor]:
        with use_stream(self.load_stream):
            self.load_stream.wait_event(fence)
            n = load_chunks(self.kv_layers, host_chunks, token_spans)
            positions = load_positions(host_positions, self.device)
            done = self.load_stream.record_event()
        logger.debug("background retrieve loaded %d tokens", n)
        return done, positions

    def retrieve_batch(self, requests: List[RetrieveRequest]) -> Dict[str, torch.Tensor]:
        handles = [self.retrieve(r) for r in requests]
        return {h.req_id: h.wait_on_compute(self.device) for h in handles}
