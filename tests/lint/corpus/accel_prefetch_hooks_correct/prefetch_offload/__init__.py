from .hooks import PrefetchOffloadHook, PrefetchedSequential, attach_prefetch_offload

__all__ = ["PrefetchOffloadHook", "PrefetchedSequential", "attach_prefetch_offload"]
