from dataclasses import dataclass

MIN_LAYERS_FOR_OFFLOAD = 3
DEFAULT_OFFLOAD_DEVICE = "cpu"


@dataclass
class OffloadConfig:
    """Options for the offloaded KV cache.

    Args:
        offload_device (`str`): where evicted layers live between uses.
        pin_memory (`bool`): allocate host copies in page-locked memory so the
            device-to-host transfers can run asynchronously.
        prefetch_distance (`int`): how many layers ahead the cache fetches.
    """

    offload_device: str = DEFAULT_OFFLOAD_DEVICE
    pin_memory: bool = True
    prefetch_distance: int = 1

    def __post_init__(self):
        if self.prefetch_distance < 1:
            raise ValueError(f"`prefetch_distance` must be >= 1, got {self.prefetch_distance}")
