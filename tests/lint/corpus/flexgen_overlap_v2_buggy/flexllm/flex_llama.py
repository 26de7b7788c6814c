"""
Offloaded Llama decoding with a single-GPU-batch overlapped schedule.
"""
import logging

import torch
import torch.nn.functional as F

from .policy import Policy
from .pytorch_backend import TorchDevice, load_to_gpu, store_to_cpu
from .utils import Task, ValueHolder, array_1d

logger = logging.getLogger(__name__)


class LlamaLM:
    def __init__(self, weights, num_layers: int, policy: Policy):
        self.policy = policy
        self.num_layers = num_layers
        self.gpu = TorchDevice("cuda:0")
        self.cpu = TorchDevice("cpu")

        # weight_home[j]: dict of pinned host tensors for layer j
        self.weight_home = weights
        # Two alternating on-device weight and cache buffers.
        self.weight_buf = [self.gpu.allocate_like(weights[0]) for _ in range(2)]
        self.cache_home = array_1d(num_layers, ValueHolder)
        self.cache_buf = [None, None]

        # CUDA streams
        self.load_weight_stream = torch.cuda.Stream()
        self.load_cache_stream = torch.cuda.Stream()
        self.store_cache_stream = torch.cuda.Stream()

        self.task = None
        self.hidden = None

    def set_task(self, task: Task):
        self.task = task
        max_len = task.prompt_len + task.gen_len
        shape = (max_len, task.inputs.shape[0], self.weight_home[0]["wk"].shape[1])
        for j in range(self.num_layers):
            self.cache_home[j].store(self.cpu.allocate(shape, torch.float16))
        self.cache_buf = [self.gpu.allocate(shape, torch.float16) for _ in range(2)]

    def load_weight(self, i, j):
        if j == self.num_layers:
            j = 0
            i += 1
        if i == self.task.gen_len:
            return
        with torch.cuda.stream(self.load_weight_stream):
            load_to_gpu(self.weight_buf[j % 2], self.weight_home[j])

    def load_cache(self, i, j):
        if j == self.num_layers:
            j = 0
            i += 1
        if i == 0 or i == self.task.gen_len:
            return
        with torch.cuda.stream(self.load_cache_stream):
            load_to_gpu({"kv": self.cache_buf[j % 2]}, {"kv": self.cache_home[j].val})

    def store_cache(self, i, j, new_kv):
        pos = self.task.prompt_len + i - 1 if i > 0 else 0
        self.store_cache_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.store_cache_stream):
            store_to_cpu(self.cache_home[j].val, new_kv, pos)
        new_kv.record_stream(self.store_cache_stream)

    def compute_layer(self, i, j):
        w = self.weight_buf[j % 2]
        h = self.hidden
        kv_new = h @ w["wk"]
        if i == 0:
            ctx = kv_new
        else:
            past = self.cache_buf[j % 2][: self.task.prompt_len + i - 1]
            ctx = torch.cat([past, kv_new], dim=0)
        q = h @ w["wq"]
        scores = torch.einsum("sbd,tbd->bst", q, ctx)
        attn = torch.einsum("bst,tbd->sbd", F.softmax(scores, dim=-1), ctx)
        self.hidden = h + attn @ w["wo"]
        return kv_new

    def sync(self):
        self.load_weight_stream.synchronize()
        self.load_cache_stream.synchronize()
        self.store_cache_stream.synchronize()

    def generation_loop_overlap_single_batch(self):
        self.load_weight(0, 0)
        self.sync()
        for i in range(self.task.gen_len):
            if i == 0:
                self.hidden = self.task.inputs
            else:
                self.hidden = self.hidden[-1:]
            for j in range(self.num_layers):
                self.load_weight(i, j + 1)
                self.load_cache(i, j + 1)
                kv_new = self.compute_layer(i, j)
                self.store_cache(i, j, kv_new)
                self.sync()
            logger.info("token %d done", i)
        return self.hidden
