import torch
import torch.nn.functional as F

from .backend import TorchDevice, TorchTensor, ValueHolder, general_copy
from .policy import Policy, Task


class SelfAttention:
    def __init__(self, hidden_size: int, env_gpu: TorchDevice, env_cpu: TorchDevice, policy: Policy,
                 dtype=torch.float16) -> None:
        self.hidden_size = hidden_size
        self.compute = env_gpu
        self.cpu = env_cpu
        self.policy = policy
        self.dtype = dtype
        self.task: Task = None

    def init_weight(self, weight_home: ValueHolder) -> None:
        h = self.hidden_size
        weights = [self.cpu.allocate((h, h), self.dtype, pin_memory=self.policy.pin_weight) for _ in range(4)]
        for w in weights:
            torch.nn.init.normal_(w.data, std=0.02)
        weight_home.store(weights)

    def load_weight(self, weight_home: ValueHolder, weight_read_buf: ValueHolder, k: int) -> None:
        if k != 0:
            return
        bufs = []
        for w_home in weight_home.val:
            w_gpu = self.compute.allocate(w_home.shape, w_home.dtype)
            general_copy(w_gpu, None, w_home, None)
            bufs.append(w_gpu)
        weight_read_buf.store(bufs)

    def init_cache_one_gpu_batch(self, cache_home: ValueHolder) -> None:
        shape = (self.task.prompt_len + self.task.gen_len, self.policy.gpu_batch_size, self.hidden_size)
        k_home = self.cpu.allocate(shape, self.dtype, pin_memory=True)
        v_home = self.cpu.allocate(shape, self.dtype, pin_memory=True)
        cache_home.store((k_home, v_home))

    def load_cache(self, cache_home: ValueHolder, cache_read_buf: ValueHolder, i: int) -> None:
        if i == 0:
            return
        k_home, v_home = cache_home.val
        indices = (slice(0, self.task.prompt_len + i - 1),)
        shape = (self.task.prompt_len + i - 1, self.policy.gpu_batch_size, self.hidden_size)
        k_buf = self.compute.allocate(shape, self.dtype)
        v_buf = self.compute.allocate(shape, self.dtype)
        general_copy(k_buf, None, k_home, indices)
        general_copy(v_buf, None, v_home, indices)
        cache_read_buf.store((k_buf, v_buf))

    def store_cache(self, cache_home: ValueHolder, cache_write_buf: ValueHolder, i: int) -> None:
        k_home, v_home = cache_home.val
        k_new, v_new = cache_write_buf.pop()
        if i == self.task.gen_len - 1:
            return
        if i == 0:
            indices = (slice(0, k_new.shape[0]),)
        else:
            pos = self.task.prompt_len + i
            indices = (slice(pos - k_new.shape[0], pos),)
        general_copy(k_home, indices, k_new, None)
        general_copy(v_home, indices, v_new, None)

    def forward(self, hidden: ValueHolder, cache_read_buf: ValueHolder, weight_read_buf: ValueHolder,
                cache_write_buf: ValueHolder, i: int) -> None:
        w_q, w_k, w_v, w_out = (w.data for w in weight_read_buf.val)
        h = hidden.val.data
        x = h.transpose(0, 1)
        q = x @ w_q
        k_new = x @ w_k
        v_new = x @ w_v
        if i == 0:
            k_all, v_all = k_new, v_new
        else:
            k_cache, v_cache = cache_read_buf.pop()
            k_all = torch.cat([k_cache.data, k_new], dim=0)
            v_all = torch.cat([v_cache.data, v_new], dim=0)
        attn = F.scaled_dot_product_attention(
            q.permute(1, 0, 2), k_all.permute(1, 0, 2), v_all.permute(1, 0, 2), is_causal=(i == 0)
        )
        hidden.val = TorchTensor.create_from_torch(h + attn @ w_out, self.compute)
        cache_write_buf.store((TorchTensor.create_from_torch(k_new, self.compute),
                               TorchTensor.create_from_torch(v_new, self.compute)))
