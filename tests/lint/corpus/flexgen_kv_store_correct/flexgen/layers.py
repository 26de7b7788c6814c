import torch
import torch.nn.functional as F

from .backend import TorchDevice, TorchTensor, general_copy


class ValueHolder:
    def __init__(self):
        self.val = None

    def store(self, val):
        assert self.val is None, "Overwrite a value"
        self.val = val

    def pop(self):
        ret = self.val
        self.val = None
        return ret


class SelfAttention:
    def __init__(self, layer_id: int, n_head: int, head_dim: int, gpu: TorchDevice, cpu: TorchDevice):
        self.layer_id = layer_id
        self.n_head = n_head
        self.head_dim = head_dim
        self.gpu = gpu
        self.cpu = cpu

    def init_cache_one_gpu_batch(self, cache_home: ValueHolder, max_seq_len: int, gpu_batch_size: int):
        cache_home.store(self.cpu.init_cache_one_gpu_batch(max_seq_len, gpu_batch_size * self.n_head, self.head_dim))

    def load_cache(self, cache_home: ValueHolder, cache_read_buf: ValueHolder, i: int, src_s: int):
        if i == 0:
            return
        k_home, v_home = cache_home.val
        indices = (slice(0, src_s - 1), slice(0, k_home.shape[1]))
        k_buf = self.gpu.allocate((src_s,) + k_home.shape[1:])
        v_buf = self.gpu.allocate((src_s,) + v_home.shape[1:])
        general_copy(k_buf, indices, k_home, indices)
        general_copy(v_buf, indices, v_home, indices)
        cache_read_buf.store((k_buf, v_buf))

    def store_cache(self, cache_home: ValueHolder, cache_write_buf: ValueHolder, i: int, prompt_len: int):
        k_home, v_home = cache_home.val
        k_new, v_new = cache_write_buf.pop()
        if i == 0:
            indices = (slice(0, k_new.shape[0]), slice(0, k_new.shape[1]))
        else:
            pos = prompt_len + i
            indices = (slice(pos - k_new.shape[0], pos), slice(0, k_new.shape[1]))
        general_copy(k_home, indices, k_new, None)
        general_copy(v_home, indices, v_new, None)

    def forward(self, hidden: ValueHolder, cache_read_buf: ValueHolder, cache_write_buf: ValueHolder,
                weight: torch.Tensor, i: int):
        h = hidden.val.data
        b, s, d = h.shape
        qkv = F.linear(h, weight).view(b, s, 3, self.n_head, self.head_dim)
        q, k, v = qkv.unbind(dim=2)
        k_new = k.permute(1, 0, 2, 3).reshape(s, b * self.n_head, self.head_dim).contiguous()
        v_new = v.permute(1, 0, 2, 3).reshape(s, b * self.n_head, self.head_dim).contiguous()
        if i > 0:
            k_buf, v_buf = cache_read_buf.pop()
            k_buf.data[-s:].copy_(k_new)
            v_buf.data[-s:].copy_(v_new)
            k_all, v_all = k_buf.data, v_buf.data
        else:
            k_all, v_all = k_new, v_new
        k_all = k_all.view(-1, b, self.n_head, self.head_dim).permute(1, 2, 0, 3)
        v_all = v_all.view(-1, b, self.n_head, self.head_dim).permute(1, 2, 0, 3)
        out = F.scaled_dot_product_attention(q.transpose(1, 2), k_all, v_all, is_causal=(i == 0))
        hidden.val = TorchTensor(out.transpose(1, 2).reshape(b, s, d), self.gpu)
        cache_write_buf.store((TorchTensor(k_new, self.gpu), TorchTensor(v_new, self.gpu)))
