import logging
from concurrent.futures import Future
from typing import Callable, Optional, Sequence

import torch

from .cache_io import init_cache_home, load_cache, store_cache
from .policy import ModelShape, Policy
from .streams import StreamPool

logger = logging.getLogger(__name__)

LayerFn = Callable[
    [torch.Tensor, Optional[torch.Tensor], Optional[torch.Tensor]],
    tuple[torch.Tensor, torch.Tensor, torch.Tensor],
]


class OffloadGenerator:
    """Layer-by-layer decoding with the KV cache homed on CPU, overlapping cache I/O with compute."""

    def __init__(self, layers: Sequence[LayerFn], shape: ModelShape, policy: Policy, device: str = "cuda:0") -> None:
        self.layers = list(layers)
        self.shape = shape
        self.policy = policy
        self.device = torch.device(device)
        self.num_layers = shape.num_layers
        self.compute_stream = torch.cuda.Stream(device=self.device)
        self.io = StreamPool(policy.io_workers, self.device)
        self.cache_home = [init_cache_home(shape, policy) for _ in range(self.num_layers)]
        self.store_tasks: list[Optional[Future]] = [None] * self.num_layers
        self.load_tasks: list[Optional[Future]] = [None] * self.num_layers

    def _wait_store(self, j: int) -> None:
        task = self.store_tasks[j]
        if task is not None:
            task.result()
            self.store_tasks[j] = None

    def load_cache(self, j: int, upto: int) -> None:
        if j >= self.num_layers or upto == 0:
            return
        self._wait_store(j)
        k_home, v_home = self.cache_home[j]
        self.load_tasks[j] = self.io.submit(load_cache, k_home, v_home, upto, self.device)

    def store_cache(self, j: int, k_new: torch.Tensor, v_new: torch.Tensor, pos: int) -> None:
        k_home, v_home = self.cache_home[j]
        self.store_tasks[j] = self.io.submit(store_cache, k_home, v_home, k_new, v_new, pos)

    def _fetch_loaded(self, j: int) -> tuple[Optional[torch.Tensor], Optional[torch.Tensor]]:
        task = self.load_tasks[j]
        if task is None:
            return None, None
        self.load_tasks[j] = None
        k, v = task.result()
        k.record_stream(self.compute_stream)
        v.record_stream(self.compute_stream)
        return k, v

    def compute_layer(self, j: int, hidden: torch.Tensor, pos: int) -> torch.Tensor:
        k_past, v_past = self._fetch_loaded(j)
        hidden, k_new, v_new = self.layers[j](hidden, k_past, v_past)
        k_new = k_new.to(self.policy.cache_dtype)
        v_new = v_new.to(self.policy.cache_dtype)
        self.store_cache(j, k_new, v_new, pos)
        return hidden

    @torch.inference_mode()
    def generate(self, hidden: torch.Tensor, prompt_len: int, gen_len: int) -> torch.Tensor:
        outputs = []
        with torch.cuda.stream(self.compute_stream):
            for i in range(gen_len):
                pos = 0 if i == 0 else prompt_len + i - 1
                self.load_cache(0, pos)
                for j in range(self.num_layers):
                    self.load_cache(j + 1, pos)
                    hidden = self.compute_layer(j, hidden, pos)
                outputs.append(hidden[-1:])
                hidden = hidden[-1:]
        for j in range(self.num_layers):
            self._wait_store(j)
        logger.info("generated %d steps over %d layers", gen_len, self.num_layers)
        return torch.cat(outputs, dim=0)
