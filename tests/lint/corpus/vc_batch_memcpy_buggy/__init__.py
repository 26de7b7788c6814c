"""Worker-side CPU<->GPU KV block transfers using cuMemcpyBatchAsync."""

from .handler import CpuGpuOffloadingHandler, TransferSpec
