import logging
from typing import List

import numpy as np
import torch

from .backend import TorchDevice, TorchTensor
from .layers import SelfAttention, ValueHolder
from .policy import Policy, Task

logger = logging.getLogger(__name__)


def array_2d(a: int, b: int, cls=ValueHolder):
    return [[cls() for _ in range(b)] for _ in range(a)]


class OptLM:
    def __init__(self, num_layers: int, n_head: int, head_dim: int, weights: List[torch.Tensor], policy: Policy):
        self.policy = policy
        self.num_layers = num_layers
        self.num_gpu_batches = policy.num_gpu_batches
        self.gpu = TorchDevice("cuda:0")
        self.cpu = TorchDevice("cpu")
        self.layers = [SelfAttention(j, n_head, head_dim, self.gpu, self.cpu) for j in range(num_layers)]
        self.weights = weights

        # CUDA streams
        self.load_weight_stream = torch.cuda.Stream()
        self.load_cache_stream = torch.cuda.Stream()
        self.store_cache_stream = torch.cuda.Stream()
        self.layer_done = [torch.cuda.Event() for _ in range(self.num_gpu_batches)]

        self.cache_home = array_2d(num_layers, self.num_gpu_batches)
        self.cache_read_buf = array_2d(num_layers, self.num_gpu_batches)
        self.cache_write_buf = array_2d(num_layers, self.num_gpu_batches)
        self.hidden = array_2d(num_layers, self.num_gpu_batches)

    def init_all_caches(self, task: Task):
        max_seq_len = task.prompt_len + task.gen_len - 1
        for j in range(self.num_layers):
            for k in range(self.num_gpu_batches):
                self.layers[j].init_cache_one_gpu_batch(self.cache_home[j][k], max_seq_len, self.policy.gpu_batch_size)

    def load_cache(self, i: int, j: int, k: int, overlap: bool = True):
        # Handle corner cases
        if j == self.num_layers:
            j = 0
            i += 1
            if i == self.task.gen_len:
                return
        src_s = self.task.prompt_len + i
        if overlap:
            with torch.cuda.stream(self.load_cache_stream):
                self.layers[j].load_cache(self.cache_home[j][k], self.cache_read_buf[j][k], i, src_s)
        else:
            self.layers[j].load_cache(self.cache_home[j][k], self.cache_read_buf[j][k], i, src_s)

    def store_cache(self, i: int, j: int, k: int, overlap: bool = True):
        if j < 0 or j == self.num_layers:
            return
        if overlap:
            self.store_cache_stream.wait_event(self.layer_done[k])
            with torch.cuda.stream(self.store_cache_stream):
                self.layers[j].store_cache(self.cache_home[j][k], self.cache_write_buf[j][k], i, self.task.prompt_len)
        else:
            self.layers[j].store_cache(self.cache_home[j][k], self.cache_write_buf[j][k], i, self.task.prompt_len)

    def compute_layer(self, i: int, j: int, k: int):
        if j > 0:
            self.hidden[j][k].val = self.hidden[j - 1][k].pop()
        self.layers[j].forward(self.hidden[j][k], self.cache_read_buf[j][k], self.cache_write_buf[j][k],
                               self.weights[j], i)
        self.layer_done[k].record()

    def sync(self):
        torch.cuda.synchronize()

    def generation_loop_overlap_single_batch(self, hidden0: torch.Tensor):
        for i in range(self.task.gen_len):
            self.hidden[0][0].val = TorchTensor(hidden0, self.gpu)
            for j in range(self.num_layers):
                self.load_cache(i, j + 1, 0)
                self.compute_layer(i, j, 0)
                self.store_cache(i, j, 0)
                self.sync()
            hidden0 = self.hidden[self.num_layers - 1][0].pop().data[:, -1:]

    def generate(self, task: Task, hidden0: torch.Tensor):
        self.task = task
        self.init_all_caches(task)
        self.generation_loop_overlap_single_batch(hidden0)
        logger.info("peak gpu mem: %.3f GB", torch.cuda.max_memory_allocated() / 2**30)
        return np.zeros((self.policy.gpu_batch_size, task.gen_len), dtype=np.int64)
