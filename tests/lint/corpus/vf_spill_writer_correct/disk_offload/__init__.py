from disk_offload.handler import BlockTransfer, CpuDiskOffloadingHandler

__all__ = ["BlockTransfer", "CpuDiskOffloadingHandler"]
