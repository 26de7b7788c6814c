"""OPT-style generation with the KV cache kept in host memory."""
import logging
from typing import Callable

import torch

from .layers import SelfAttention
from .utils import ValueHolder, array_1d

logger = logging.getLogger(__name__)


class OptLM:
    def __init__(self, config, env, policy):
        self.config = config
        self.env = env
        self.policy = policy
        self.layers = [SelfAttention(config, env, policy, j) for j in range(config.num_hidden_layers)]
        self.num_layers = len(self.layers)
        assert self.num_layers >= 2, "the overlapped schedule needs at least two layers"

        # CUDA streams
        self.load_cache_stream = torch.cuda.Stream()
        self.store_cache_stream = torch.cuda.Stream()

        # cache[j]
        self.cache_home = array_1d(self.num_layers, ValueHolder)
        self.cache_read_buf = array_1d(self.num_layers, ValueHolder)
        self.cache_write_buf = array_1d(self.num_layers, ValueHolder)
        self.hidden = None
        self.task = None
        self.execute_gen_len = 0

    def set_task(self, task) -> None:
        self.task = task
        self.execute_gen_len = task.gen_len
        for layer, home in zip(self.layers, self.cache_home):
            layer.set_task(task)
            home.clear()
            layer.init_cache_one_gpu_batch(home)

    def load_cache(self, i: int, j: int) -> None:
        # Handle corner cases
        if j == self.num_layers:
            j = 0
            i += 1
        if i == self.execute_gen_len:
            return
        with torch.cuda.stream(self.load_cache_stream):
            self.layers[j].load_cache(self.cache_home[j], self.cache_read_buf[j], i)

    def store_cache(self, i: int, j: int) -> None:
        # Handle corner cases
        if j == -1:
            j = self.num_layers - 1
            i -= 1
        if i == -1:
            return
        with torch.cuda.stream(self.store_cache_stream):
            self.layers[j].store_cache(self.cache_home[j], self.cache_write_buf[j], i)

    def compute_layer(self, i: int, j: int) -> None:
        self.hidden = self.layers[j].forward(self.hidden, self.cache_read_buf[j], self.cache_write_buf[j], i)

    def sync(self) -> None:
        torch.cuda.synchronize()

    def generation_loop_overlap_single_batch(self, inputs_embeds: torch.Tensor,
                                             next_inputs: Callable[[torch.Tensor], torch.Tensor]) -> None:
        self.hidden = inputs_embeds
        self.sync()
        for i in range(self.execute_gen_len):
            for j in range(self.num_layers):
                self.load_cache(i, j + 1)
                self.compute_layer(i, j)
                self.store_cache(i, j - 1)
                self.sync()
            self.hidden = next_inputs(self.hidden)
            logger.debug("token %d done", i)
        self.store_cache(self.execute_gen_len, -1)
        self.sync()
