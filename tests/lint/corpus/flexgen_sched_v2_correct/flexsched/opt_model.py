import logging
from typing import List

import torch

from .layers import SelfAttention
from .policy import ModelConfig, Policy, Task
from .pytorch_backend import TorchDevice, ValueHolder
from .streams import MultiStreamRunner

logger = logging.getLogger(__name__)


def array_1d(n: int) -> List[ValueHolder]:
    return [ValueHolder() for _ in range(n)]


class OptLM:
    def __init__(self, config: ModelConfig, policy: Policy):
        self.config = config
        self.policy = policy
        self.gpu = TorchDevice("cuda:0")
        self.cpu = TorchDevice("cpu")
        self.num_layers = config.num_hidden_layers
        self.layers = [SelfAttention(config, self.gpu, self.cpu, j) for j in range(self.num_layers)]
        self.runner = MultiStreamRunner(policy.num_copy_threads)

        self.weight_home = array_1d(self.num_layers)
        self.weight_read_buf = array_1d(self.num_layers)
        self.cache_home = array_1d(self.num_layers)
        self.cache_read_buf = array_1d(self.num_layers)
        self.cache_write_buf = array_1d(self.num_layers)
        self.hidden = ValueHolder()
        for j, layer in enumerate(self.layers):
            layer.init_weight(self.weight_home[j])

    def load_weight(self, i: int, j: int) -> None:
        if j >= self.num_layers:
            j, i = 0, i + 1
        if i >= self.execute_gen_len:
            return
        self.runner.run(False, self.layers[j].load_weight, self.weight_home[j], self.weight_read_buf[j])

    def load_cache(self, i: int, j: int) -> None:
        if i == 0:
            return
        if j >= self.num_layers:
            j, i = 0, i + 1
        if i >= self.execute_gen_len:
            return
        self.runner.run(False, self.layers[j].load_cache, self.cache_home[j], self.cache_read_buf[j], i)

    def store_cache(self, i: int, j: int) -> None:
        if j == -1:
            j, i = self.num_layers - 1, i - 1
        if i < 0:
            return
        self.runner.run(False, self.layers[j].store_cache, self.cache_home[j], self.cache_write_buf[j], i)

    def compute_layer(self, i: int, j: int) -> None:
        if i == 0 and self.cache_read_buf[j].val is None:
            _, heads, head_dim = self.cache_home[j].val[0].shape
            dtype = self.layers[j].dtype
            empty_k = torch.empty((0, heads, head_dim), dtype=dtype, device=self.gpu.dev)
            empty_v = torch.empty((0, heads, head_dim), dtype=dtype, device=self.gpu.dev)
            self.cache_read_buf[j].store((empty_k, empty_v))
        self.layers[j].forward(self.hidden, self.cache_read_buf[j], self.weight_read_buf[j],
                               self.cache_write_buf[j])

    def sync(self) -> None:
        self.runner.wait_all()
        torch.cuda.synchronize()

    def generate(self, task: Task, hidden_states: torch.Tensor) -> torch.Tensor:
        self.execute_gen_len = task.gen_len
        batch = self.policy.gpu_batch_size
        for j, layer in enumerate(self.layers):
            layer.prompt_len = task.prompt_len
            self.cache_home[j].clear()
            layer.init_cache(self.cache_home[j], batch, task.prompt_len + task.gen_len)
        self.hidden.val = hidden_states.to(self.gpu.dev)
        self.generation_loop_overlap_single_batch()
        return self.hidden.val

    def generation_loop_overlap_single_batch(self) -> None:
        self.load_weight(0, 0)
        self.sync()
        for i in range(self.execute_gen_len):
            logger.debug("decode step %d", i)
            for j in range(self.num_layers):
                self.load_weight(i, j + 1)
                self.load_cache(i, j + 1)
                self.compute_layer(i, j)
                self.store_cache(i, j - 1)
                self.sync()
            self.hidden.val = self.hidden.val[:, -1:]
        self.store_cache(self.execute_gen_len, -1)
        self.sync()
