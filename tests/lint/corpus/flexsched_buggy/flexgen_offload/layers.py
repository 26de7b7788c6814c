import torch
import torch.nn.functional as F

from .pytorch_backend import general_copy


class SelfAttention:
    def __init__(self, config, env, policy, layer_id: int):
        self.config = config
        self.env = env
        self.policy = policy
        self.layer_id = layer_id
        self.task = None
        h = config.input_dim
        self.w_qkv = torch.empty((h, 3 * h), dtype=config.dtype, device=env.gpu.dev)
        self.w_out = torch.empty((h, h), dtype=config.dtype, device=env.gpu.dev)

    def set_task(self, task) -> None:
        self.task = task

    def init_cache_one_gpu_batch(self, cache_home) -> None:
        cache_home.store(self.env.cpu.init_cache_one_gpu_batch(self.config, self.task, self.policy))

    def load_cache(self, cache_home, cache_read_buf, i: int) -> None:
        if i == 0:  # prefill, no cache
            return
        k_home, v_home = cache_home.val
        src_s = self.task.prompt_len + i - 1
        indices = (slice(0, src_s), slice(0, k_home.shape[1]))
        k_buf = self.env.gpu.allocate((src_s,) + tuple(k_home.shape[1:]), self.config.dtype)
        v_buf = self.env.gpu.allocate((src_s,) + tuple(v_home.shape[1:]), self.config.dtype)
        general_copy(k_buf, None, k_home, indices)
        general_copy(v_buf, None, v_home, indices)
        cache_read_buf.store((k_buf, v_buf))

    def store_cache(self, cache_home, cache_write_buf, i: int) -> None:
        k_home, v_home = cache_home.val
        k_new, v_new = cache_write_buf.pop()
        if i == 0:  # prefill
            indices = (slice(0, k_new.shape[0]), slice(0, k_new.shape[1]))
        else:  # decoding
            pos = self.task.prompt_len + i
            indices = (slice(pos - k_new.shape[0], pos), slice(0, k_new.shape[1]))
        general_copy(k_home, indices, k_new, None)
        general_copy(v_home, indices, v_new, None)
        k_new.record_stream(torch.cuda.current_stream())
        v_new.record_stream(torch.cuda.current_stream())

    def forward(self, hidden: torch.Tensor, cache_read_buf, cache_write_buf, i: int) -> torch.Tensor:
        # hidden: (s, b * n_head, head_dim) flattened to (s, b, h) for the projections
        s, bh, d = hidden.shape
        x = hidden.reshape(s, bh // self.config.n_head, self.config.input_dim)
        q, k, v = (x @ self.w_qkv).chunk(3, dim=-1)
        q, k, v = (t.reshape(s, bh, d) for t in (q, k, v))
        cache_write_buf.store((k, v))
        if i > 0:
            k_cache, v_cache = cache_read_buf.pop()
            k = torch.cat([k_cache, k], dim=0)
            v = torch.cat([v_cache, v], dim=0)
        out = F.scaled_dot_product_attention(q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1), is_causal=(i == 0))
        out = out.transpose(0, 1).reshape(s, bh // self.config.n_head, self.config.input_dim) @ self.w_out
        return out.reshape(s, bh, d)
