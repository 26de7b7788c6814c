"""CPU offloading for the vLLM v1 KV cache using batched driver copies."""

from cpu_offload.worker import CpuGpuBatchOffloader

__all__ = ["CpuGpuBatchOffloader"]
