import torch

from kv_tier.handlers import DirectionHandler
from kv_tier.mediums import CPUBlocks, GPUBlocks


class CPUTierSpec:
    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self._handlers = None

    def _make_handlers(self, kv_caches: list[torch.Tensor]):
        gpu = [t.view(torch.int8).view(t.shape[0], -1) for t in kv_caches]
        cpu = [
            torch.zeros((self.num_cpu_blocks, t.shape[1]), dtype=torch.int8, device="cpu", pin_memory=True)
            for t in gpu
        ]
        return DirectionHandler(gpu, cpu, gpu_to_cpu=True), DirectionHandler(gpu, cpu, gpu_to_cpu=False)

    def get_handlers(self, kv_caches: list[torch.Tensor]):
        if self._handlers is None:
            self._handlers = self._make_handlers(kv_caches)
        store, load = self._handlers
        yield GPUBlocks, CPUBlocks, store
        yield CPUBlocks, GPUBlocks, load
