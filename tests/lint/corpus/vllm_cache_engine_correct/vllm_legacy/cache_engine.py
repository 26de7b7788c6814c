"""CacheEngine class for managing the KV cache."""

from __future__ import annotations

import torch

from vllm.logger import init_logger
from vllm.utils import in_wsl

from vllm_legacy import cache_ops
from vllm_legacy.config import STR_DTYPE_TO_TORCH_DTYPE, CacheConfig

logger = init_logger(__name__)

KVCache = tuple[torch.Tensor, torch.Tensor]


class CacheEngine:
    """Manages the KV cache.

    This class is responsible for initializing and managing the GPU and CPU KV
    caches. It also provides methods for performing KV cache operations, such
    as swapping and copying.
    """

    def __init__(self, cache_config: CacheConfig, model_config, parallel_config) -> None:
        self.cache_config = cache_config
        self.head_size = model_config.get_head_size()
        self.num_layers = model_config.get_num_layers(parallel_config)
        self.num_heads = model_config.get_num_kv_heads(parallel_config)
        self.block_size = cache_config.block_size
        self.num_gpu_blocks = cache_config.num_gpu_blocks
        self.num_cpu_blocks = cache_config.num_cpu_blocks
        if cache_config.cache_dtype == "auto":
            self.dtype = model_config.dtype
        else:
            self.dtype = STR_DTYPE_TO_TORCH_DTYPE[cache_config.cache_dtype]

        self.gpu_cache = self.allocate_gpu_cache()
        self.cpu_cache = self.allocate_cpu_cache()

        # Initialize the stream for caching operations.
        self.cache_stream = torch.cuda.Stream()
        assert self.cache_stream != torch.cuda.current_stream()
        # Initialize the events for stream synchronization.
        self.events = [torch.cuda.Event() for _ in range(self.num_layers)]

    def _block_shape(self) -> tuple[int, ...]:
        return (self.block_size, self.num_heads, self.head_size)

    def allocate_gpu_cache(self) -> list[KVCache]:
        shape = (self.num_gpu_blocks, *self._block_shape())
        return [
            (
                torch.empty(shape, dtype=self.dtype, device="cuda"),
                torch.empty(shape, dtype=self.dtype, device="cuda"),
            )
            for _ in range(self.num_layers)
        ]

    def allocate_cpu_cache(self) -> list[KVCache]:
        pin_memory = not in_wsl()
        if not pin_memory:
            logger.warning("Using 'pin_memory=False' as WSL is detected.")
        shape = (self.num_cpu_blocks, *self._block_shape())
        return [
            (
                torch.empty(shape, dtype=self.dtype, pin_memory=pin_memory),
                torch.empty(shape, dtype=self.dtype, pin_memory=pin_memory),
            )
            for _ in range(self.num_layers)
        ]

    def _swap(self, src: list[KVCache], dst: list[KVCache], src_to_dst: dict[int, int]) -> None:
        # Swapped-out blocks were written, and recycled swap-in targets were read,
        # by the previous forward pass on the compute stream.
        self.cache_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.cache_stream):
            for i in range(self.num_layers):
                src_key_cache, src_value_cache = src[i]
                dst_key_cache, dst_value_cache = dst[i]
                cache_ops.swap_blocks(src_key_cache, dst_key_cache, src_to_dst)
                cache_ops.swap_blocks(src_value_cache, dst_value_cache, src_to_dst)
                event = self.events[i]
                event.record(stream=self.cache_stream)

    def swap_in(self, src_to_dst: dict[int, int]) -> None:
        self._swap(self.cpu_cache, self.gpu_cache, src_to_dst)

    def swap_out(self, src_to_dst: dict[int, int]) -> None:
        self._swap(self.gpu_cache, self.cpu_cache, src_to_dst)

    def copy(self, src_to_dsts: dict[int, list[int]]) -> None:
        key_caches = [key_cache for key_cache, _ in self.gpu_cache]
        value_caches = [value_cache for _, value_cache in self.gpu_cache]
        cache_ops.copy_blocks(key_caches, value_caches, src_to_dsts)
