from contextlib import nullcontext

import torch

from .backend import TorchDevice, TorchTensor, ValueHolder
from .layers import SelfAttention
from .policy import ModelShape, Policy, Task


def array_2d(a: int, b: int, cls):
    return [[cls() for _ in range(b)] for _ in range(a)]


class OptLM:
    def __init__(self, shape: ModelShape, policy: Policy, gpu: str = "cuda:0") -> None:
        self.policy = policy
        self.gpu = TorchDevice(gpu)
        self.cpu = TorchDevice("cpu")
        self.num_layers = shape.num_layers
        self.num_gpu_batches = policy.num_gpu_batches
        self.dtype = getattr(torch, shape.dtype)
        self.layers = [
            SelfAttention(shape.hidden_size, self.gpu, self.cpu, policy, self.dtype) for _ in range(self.num_layers)
        ]
        self.embed = torch.nn.Embedding(shape.vocab_size, shape.hidden_size).to(self.gpu.dev, self.dtype)

        self.load_weight_stream = torch.cuda.Stream()
        self.load_cache_stream = torch.cuda.Stream()
        self.store_cache_stream = torch.cuda.Stream()

        self.weight_home = [ValueHolder() for _ in range(self.num_layers)]
        self.weight_read_buf = [ValueHolder() for _ in range(self.num_layers)]
        for j, layer in enumerate(self.layers):
            layer.init_weight(self.weight_home[j])

    def _init_buffers(self) -> None:
        self.cache_home = array_2d(self.num_layers, self.num_gpu_batches, ValueHolder)
        self.cache_read_buf = array_2d(self.num_layers, self.num_gpu_batches, ValueHolder)
        self.cache_write_buf = array_2d(self.num_layers, self.num_gpu_batches, ValueHolder)
        self.hidden = [ValueHolder() for _ in range(self.num_gpu_batches)]
        for j, layer in enumerate(self.layers):
            layer.task = self.task
            for k in range(self.num_gpu_batches):
                layer.init_cache_one_gpu_batch(self.cache_home[j][k])

    def load_weight(self, i: int, j: int, k: int, overlap: bool = True) -> None:
        if j == self.num_layers:
            j = 0
            i += 1
            if i == self.execute_gen_len:
                return
        with torch.cuda.stream(self.load_weight_stream) if overlap else nullcontext():
            self.layers[j].load_weight(self.weight_home[j], self.weight_read_buf[j], k)

    def load_cache(self, i: int, j: int, k: int, overlap: bool = True) -> None:
        if k == self.num_gpu_batches:
            k = 0
            j += 1
        if j == self.num_layers:
            j = 0
            i += 1
            if i == self.execute_gen_len:
                return
        with torch.cuda.stream(self.load_cache_stream) if overlap else nullcontext():
            self.layers[j].load_cache(self.cache_home[j][k], self.cache_read_buf[j][k], i)

    def store_cache(self, i: int, j: int, k: int, overlap: bool = True) -> None:
        if k == -1:
            k = self.num_gpu_batches - 1
            j -= 1
        if j == -1:
            j = self.num_layers - 1
            i -= 1
            if i == -1:
                return
        if overlap:
            with torch.cuda.stream(self.store_cache_stream):
                self.layers[j].store_cache(self.cache_home[j][k], self.cache_write_buf[j][k], i)
        else:
            self.layers[j].store_cache(self.cache_home[j][k], self.cache_write_buf[j][k], i)

    def compute_layer(self, i: int, j: int, k: int) -> None:
        buffers = (self.cache_read_buf[j][k], self.weight_read_buf[j], self.cache_write_buf[j][k])
        self.layers[j].forward(self.hidden[k], *buffers, i)

    def sync(self) -> None:
        torch.cuda.synchronize()

    def _next_input(self, k: int) -> None:
        self.outputs[k].append(self.hidden[k].val.data[:, -1:])
        self.hidden[k].val = TorchTensor.create_from_torch(self.outputs[k][-1], self.gpu)

    def generation_loop_normal(self) -> None:
        for i in range(self.execute_gen_len):
            for j in range(self.num_layers):
                self.load_weight(i, j, 0, overlap=False)
                for k in range(self.num_gpu_batches):
                    self.load_cache(i, j, k, overlap=False)
                    self.compute_layer(i, j, k)
                    self.store_cache(i, j, k, overlap=False)
                self.weight_read_buf[j].pop()
            for k in range(self.num_gpu_batches):
                self._next_input(k)

    def generation_loop_overlap_multi_batch(self) -> None:
        self.load_weight(0, 0, 0)
        self.sync()
        for i in range(self.execute_gen_len):
            for j in range(self.num_layers):
                for k in range(self.num_gpu_batches):
                    self.load_weight(i, j + 1, k)
                    self.load_cache(i, j, k + 1)
                    self.compute_layer(i, j, k)
                    self.store_cache(i, j, k - 1)
                    self.sync()
                self.weight_read_buf[j].pop()
            for k in range(self.num_gpu_batches):
                self._next_input(k)

    @torch.no_grad()
    def generate(self, input_ids: torch.Tensor, max_new_tokens: int = 32) -> torch.Tensor:
        bsz = self.policy.gpu_batch_size
        assert input_ids.shape[0] == bsz * self.num_gpu_batches
        self.task = Task(prompt_len=input_ids.shape[1], gen_len=max_new_tokens)
        self.execute_gen_len = max_new_tokens
        self._init_buffers()
        self.outputs = [[] for _ in range(self.num_gpu_batches)]
        ids = input_ids.to(self.gpu.dev)
        for k in range(self.num_gpu_batches):
            self.hidden[k].val = TorchTensor.create_from_torch(self.embed(ids[k * bsz:(k + 1) * bsz]), self.gpu)

        if self.policy.overlap and self.num_gpu_batches > 1:
            self.generation_loop_overlap_multi_batch()
        else:
            self.generation_loop_normal()
        return torch.cat([torch.cat(out, dim=1) for out in self.outputs], dim=0)
