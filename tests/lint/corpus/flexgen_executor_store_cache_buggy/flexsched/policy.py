import dataclasses


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    # percent = a means a%; what is not on the GPU lives in pinned CPU memory
    cache_gpu_percent: float = 0
    cache_cpu_percent: float = 100
    # Whether to overlap the I/O and compute
    overlap: bool = True
    # how many worker streams write the new KV back to its home
    num_store_streams: int = 2

    @property
    def cache_disk_percent(self) -> float:
        return 100 - self.cache_gpu_percent - self.cache_cpu_percent


class ValueHolder:
    def __init__(self):
        self.val = None

    def store(self, val):
        assert self.val is None, "Overwrite a value"
        self.val = val

    def pop(self):
        ret = self.val
        self.val = None
        return ret

    def clear(self):
        self.val = None
