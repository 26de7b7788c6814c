"""CacheEngine: owns the GPU and CPU KV caches and swaps blocks between them."""
import logging
from typing import Dict, List, Tuple

import torch

from vllm import _custom_ops as ops

logger = logging.getLogger(__name__)

KVCache = torch.Tensor  # [2, num_blocks, block_size * num_heads * head_size]

_DTYPES = {"half": torch.float16, "bfloat16": torch.bfloat16, "float": torch.float32}


class CacheEngine:
    """Manages the KV cache.

    Allocates one [2, num_blocks, block_numel] tensor per layer on the GPU and
    a pinned twin on the host, and moves blocks between them on a dedicated
    cache stream so swaps can overlap other work.
    """

    def __init__(self, cache_config, model_config, parallel_config) -> None:
        self.block_size = cache_config.block_size
        self.num_gpu_blocks = cache_config.num_gpu_blocks
        self.num_cpu_blocks = cache_config.num_cpu_blocks
        self.num_layers = model_config.get_num_layers(parallel_config)
        self.num_heads = model_config.get_num_kv_heads(parallel_config)
        self.head_size = model_config.get_head_size()
        self.dtype = _DTYPES.get(cache_config.cache_dtype, torch.float16)

        self.gpu_cache = self._allocate_kv_cache(self.num_gpu_blocks, "cuda")
        self.cpu_cache = self._allocate_kv_cache(self.num_cpu_blocks, "cpu")

        # Swaps run on their own stream; each layer gets an event so the model
        # can wait for exactly the layer it is about to read.
        self.cache_stream = torch.cuda.Stream()
        assert self.cache_stream != torch.cuda.current_stream()
        self.events = [torch.cuda.Event() for _ in range(self.num_layers)]

    def _allocate_kv_cache(self, num_blocks: int, device: str) -> List[KVCache]:
        block_numel = self.block_size * self.num_heads * self.head_size
        pin_memory = device == "cpu"
        if pin_memory:
            logger.info("Allocating %d pinned CPU blocks", num_blocks)
        return [
            torch.zeros(
                (2, num_blocks, block_numel),
                dtype=self.dtype,
                device=device,
                pin_memory=pin_memory,
            )
            for _ in range(self.num_layers)
        ]

    def _swap(self, src: List[KVCache], dst: List[KVCache],
              src_to_dst: torch.Tensor) -> None:
        with torch.cuda.stream(self.cache_stream):
            for i in range(self.num_layers):
                src_kv, dst_kv = src[i], dst[i]
                for kv in range(2):
                    # expect: KVG001, KVG004
                    ops.swap_blocks(src_kv[kv], dst_kv[kv], src_to_dst)
                self.events[i].record(stream=self.cache_stream)

    def swap_in(self, src_to_dst: torch.Tensor) -> None:
        self._swap(self.cpu_cache, self.gpu_cache, src_to_dst)

    def swap_out(self, src_to_dst: torch.Tensor) -> None:
        self._swap(self.gpu_cache, self.cpu_cache, src_to_dst)

    def copy(self, src_to_dsts: torch.Tensor) -> None:
        # GPU -> GPU copy-on-write, issued on the current (compute) stream;
        # a source may have been swapped in this step.
        torch.cuda.current_stream().wait_stream(self.cache_stream)
        key_caches = [kv[0] for kv in self.gpu_cache]
        value_caches = [kv[1] for kv in self.gpu_cache]
        ops.copy_blocks(key_caches, value_caches, src_to_dsts)

    @staticmethod
    def get_cache_block_size(block_size: int, num_heads: int, head_size: int,
                             num_layers: int, dtype: torch.dtype) -> int:
        key_size = block_size * num_heads * head_size
        total = num_layers * 2 * key_size
        return total * torch.tensor([], dtype=dtype).element_size()


def to_block_mapping(blocks: Dict[int, int]) -> torch.Tensor:
    """{src: dst} -> int64 [N, 2] tensor on the CPU, as swap_blocks expects."""
    pairs: List[Tuple[int, int]] = sorted(blocks.items())
    return torch.tensor(pairs, dtype=torch.int64, device="cpu").view(-1, 2)
