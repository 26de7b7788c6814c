import dataclasses
import logging
from concurrent.futures import Future
from typing import Dict, List

import torch

from .backend import ValueHolder, allocate_home, copy_cache_to_home, load_cache_prefix, load_to_device
from .policy import DEFAULT_DTYPE, Policy
from .stream_managers import CacheStoreManager

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Task:
    prompt_len: int
    gen_len: int


def array_1d(a, cls):
    return [cls() for _ in range(a)]


def array_2d(a, b, cls):
    return [[cls() for _ in range(b)] for _ in range(a)]


class OptLM:
    def __init__(self, weight_home: List[Dict[str, torch.Tensor]], hidden_size: int, policy: Policy):
        self.policy = policy
        self.hidden_size = hidden_size
        self.num_layers = len(weight_home)
        self.num_gpu_batches = policy.num_gpu_batches
        self.device = torch.device("cuda")
        self.weight_home = weight_home

        # CUDA streams
        self.load_weight_stream = torch.cuda.Stream()
        self.load_cache_stream = torch.cuda.Stream()
        self.store_mgr = CacheStoreManager(policy.num_store_workers)
        self.pending_stores: List[Future] = []

        num_layers, num_gpu_batches = self.num_layers, self.num_gpu_batches
        self.cache_home = array_2d(num_layers, num_gpu_batches, ValueHolder)
        self.cache_read_buf = array_2d(num_layers, num_gpu_batches, ValueHolder)
        self.cache_write_buf = array_2d(num_layers, num_gpu_batches, ValueHolder)
        self.weight_read_buf = array_1d(num_layers, ValueHolder)
        self.hidden = [None] * num_gpu_batches
        self.task = None

    def init_cache(self, task: Task) -> None:
        self.task = task
        shape = (task.prompt_len + task.gen_len, self.policy.gpu_batch_size, self.hidden_size)
        for j in range(self.num_layers):
            for k in range(self.num_gpu_batches):
                home_k = allocate_home(shape, DEFAULT_DTYPE, self.policy.pin_cache)
                home_v = allocate_home(shape, DEFAULT_DTYPE, self.policy.pin_cache)
                self.cache_home[j][k].store((home_k, home_v))

    def load_weight(self, i, j, k):
        if j == self.num_layers:
            j = 0
            i += 1
        if i == self.task.gen_len or k != 0:
            return
        with torch.cuda.stream(self.load_weight_stream):
            self.weight_read_buf[j].store(load_to_device(self.weight_home[j], self.device))

    def load_cache(self, i, j, k):
        if j == self.num_layers:
            j = 0
            i += 1
        if i == self.task.gen_len:
            return
        home_k, home_v = self.cache_home[j][k].val
        with torch.cuda.stream(self.load_cache_stream):
            self.cache_read_buf[j][k].store(
                load_cache_prefix(home_k, home_v, self.task.prompt_len + i, self.device)
            )

    def compute_layer(self, i, j, k):
        w = self.weight_read_buf[j].val if k < self.num_gpu_batches - 1 else self.weight_read_buf[j].pop()
        k_cache, v_cache = self.cache_read_buf[j][k].pop()
        hidden = self.hidden[k]
        q = hidden @ w["wq"]
        new_k = hidden @ w["wk"]
        new_v = hidden @ w["wv"]
        keys = torch.cat([k_cache, new_k.unsqueeze(0)], dim=0)
        values = torch.cat([v_cache, new_v.unsqueeze(0)], dim=0)
        scores = torch.einsum("bh,sbh->bs", q, keys) / (self.hidden_size ** 0.5)
        probs = torch.softmax(scores.float(), dim=-1).to(values.dtype)
        attn = torch.einsum("bs,sbh->bh", probs, values)
        self.hidden[k] = hidden + attn @ w["wo"]
        self.cache_write_buf[j][k].store((new_k, new_v))

    def store_cache(self, i, j, k):
        new_k, new_v = self.cache_write_buf[j][k].pop()
        home_k, home_v = self.cache_home[j][k].val
        pos = self.task.prompt_len + i
        ready = torch.cuda.Event()
        ready.record()
        future = self.store_mgr.submit(copy_cache_to_home, home_k, home_v, new_k, new_v, pos, after=ready)
        self.pending_stores.append(future)

    def sync(self):
        for future in self.pending_stores:
            future.result()
        self.pending_stores.clear()
        torch.cuda.synchronize()

    def generation_loop_overlap(self, hidden: List[torch.Tensor]) -> List[torch.Tensor]:
        self.hidden = list(hidden)
        for k in range(self.num_gpu_batches):
            self.load_weight(0, 0, k)
            self.load_cache(0, 0, k)
        self.sync()

        for i in range(self.task.gen_len):
            for j in range(self.num_layers):
                for k in range(self.num_gpu_batches):
                    self.load_weight(i, j + 1, k)
                    self.load_cache(i, j + 1, k)
                    self.compute_layer(i, j, k)
                    self.store_cache(i, j, k)
                    self.sync()
            logger.debug("generated token %d/%d", i + 1, self.task.gen_len)
        return self.hidden
