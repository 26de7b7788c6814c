import torch
import torch.nn.functional as F

from .policy import ModelConfig, Policy
from .pytorch_backend import DeviceType, ValueHolder, allocate_home


class OptLM:
    """Layer-by-layer generation with weights and KV cache streamed from host memory."""

    def __init__(self, config: ModelConfig, policy: Policy, gen_len: int):
        self.config = config
        self.policy = policy
        self.num_layers = config.num_layers
        h, b = config.hidden_size, policy.gpu_batch_size
        dtype = torch.float16

        self.load_weight_stream = torch.cuda.Stream()
        self.load_cache_stream = torch.cuda.Stream()
        self.store_cache_stream = torch.cuda.Stream()

        self.weight_home = [allocate_home((h, h), dtype, DeviceType.CPU, policy.pin_weight)
                            for _ in range(self.num_layers)]
        self.cache_home = [allocate_home((gen_len, b, h), dtype, DeviceType.CPU)
                           for _ in range(self.num_layers)]
        # double buffers on the GPU, indexed by layer parity
        self.weight_read_buf = [torch.empty((h, h), dtype=dtype, device="cuda") for _ in range(2)]
        self.cache_write_buf = [torch.empty((b, h), dtype=dtype, device="cuda") for _ in range(2)]
        self.cache_read_buf = [ValueHolder() for _ in range(self.num_layers)]
        self.hidden = torch.empty((b, h), dtype=dtype, device="cuda")

    def load_weight(self, i: int, j: int) -> None:
        if j == self.num_layers:
            j = 0
        with torch.cuda.stream(self.load_weight_stream):
            self.weight_read_buf[j % 2].copy_(self.weight_home[j], non_blocking=True)

    def load_cache(self, i: int, j: int) -> None:
        if i == 0 or j == self.num_layers:
            return
        with torch.cuda.stream(self.load_cache_stream):
            past = torch.empty_like(self.cache_home[j][:i], device="cuda")
            past.copy_(self.cache_home[j][:i], non_blocking=True)
        past.record_stream(torch.cuda.current_stream())
        self.cache_read_buf[j].store(past)

    def store_cache(self, i: int, j: int) -> None:
        with torch.cuda.stream(self.store_cache_stream):
            self.cache_home[j][i].copy_(self.cache_write_buf[j % 2], non_blocking=True)

    def compute_layer(self, i: int, j: int) -> None:
        w = self.weight_read_buf[j % 2]
        k_new = self.cache_write_buf[j % 2]
        torch.matmul(self.hidden, w, out=k_new)
        past = self.cache_read_buf[j].pop()
        if past is None:
            ctx = k_new
        else:
            keys = torch.cat([past, k_new.unsqueeze(0)], dim=0)  # [t, b, h]
            scores = torch.einsum("bh,tbh->bt", self.hidden, keys) / self.config.hidden_size ** 0.5
            ctx = torch.einsum("bt,tbh->bh", scores.softmax(dim=-1), keys)
        self.hidden = F.gelu(self.hidden + ctx)

    def sync(self) -> None:
        torch.cuda.synchronize()

    @torch.inference_mode()
    def generation_loop_overlap_single_batch(self, embeddings: torch.Tensor) -> torch.Tensor:
        gen_len = self.cache_home[0].shape[0]
        outputs = []
        self.load_weight(0, 0)
        self.sync()
        for i in range(gen_len):
            self.hidden.copy_(embeddings[i], non_blocking=True)
            for j in range(self.num_layers):
                self.load_weight(i, j + 1)
                self.load_cache(i, j + 1)
                self.compute_layer(i, j)
                if j > 0:
                    self.store_cache(i, j - 1)
                self.sync()
            self.store_cache(i, self.num_layers - 1)
            outputs.append(self.hidden.clone())
        self.sync()
        return torch.stack(outputs)
