"""Int8 row-wise quantization of KV chunks with numba.cuda, streamed to disk."""

from kvquant.buffers import HostSlotPool
from kvquant.pipeline import QuantizePipeline
from kvquant.sink import ChunkFileWriter

__all__ = ["ChunkFileWriter", "HostSlotPool", "QuantizePipeline"]
