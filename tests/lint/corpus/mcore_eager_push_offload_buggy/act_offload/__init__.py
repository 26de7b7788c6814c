from .manager import OffloadManager, offload_group_commit

__all__ = ["OffloadManager", "offload_group_commit"]
