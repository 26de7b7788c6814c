import logging
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Dict, List, Tuple

import torch

from kv_swap.block_copy import swap_in_blocks, swap_out_blocks
from kv_swap.constants import EVENT_DISABLE_TIMING, SWAP_THREAD_PREFIX
from kv_swap.cudart import CUDART, check, create_event, event_ready

logger = logging.getLogger(__name__)

BlockMapping = List[Tuple[int, int]]


@dataclass
class SwapConfig:
    num_gpu_blocks: int
    num_cpu_blocks: int
    max_inflight: int = 4


class KVSwapper:
    def __init__(self, gpu_cache: List[torch.Tensor], cpu_cache: List[torch.Tensor], config: SwapConfig):
        self.gpu_cache = gpu_cache
        self.cpu_cache = cpu_cache
        self.config = config
        self.swap_stream = torch.cuda.Stream()
        self._compute_ready = create_event(EVENT_DISABLE_TIMING)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=SWAP_THREAD_PREFIX)
        self._pending: Dict[str, Future] = {}

    def _fence_compute(self) -> None:
        compute = torch.cuda.current_stream().cuda_stream
        check(CUDART.cudaEventRecord(self._compute_ready, compute))
        check(CUDART.cudaStreamWaitEvent(self.swap_stream.cuda_stream, self._compute_ready, 0))

    def _run(self, fn: Callable, src, dst, mapping: BlockMapping):
        fn(src, dst, mapping, self.swap_stream.cuda_stream)
        done = create_event(EVENT_DISABLE_TIMING)
        check(CUDART.cudaEventRecord(done, self.swap_stream.cuda_stream))
        return done

    def _submit(self, req_id: str, fn: Callable, src, dst, mapping: BlockMapping, fence: bool) -> None:
        if fence:
            self._fence_compute()
        self._pending[req_id] = self._executor.submit(self._run, fn, src, dst, mapping)

    def swap_out(self, req_id: str, mapping: BlockMapping) -> None:
        self._submit(req_id, swap_out_blocks, self.gpu_cache, self.cpu_cache, mapping, fence=True)

    def swap_in(self, req_id: str, mapping: BlockMapping) -> None:
        self._submit(req_id, swap_in_blocks, self.cpu_cache, self.gpu_cache, mapping, fence=True)

    def get_finished(self) -> List[str]:
        finished = []
        for req_id, fut in list(self._pending.items()):
            if fut.done() and event_ready(fut.result()):
                finished.append(req_id)
                del self._pending[req_id]
        if finished:
            logger.debug("Swaps finished: %s", finished)
        return finished

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
