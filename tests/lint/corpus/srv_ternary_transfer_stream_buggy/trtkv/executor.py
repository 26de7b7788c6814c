import torch

from trtkv.transfer import KVCacheTransferManager


class PyExecutor:
    def __init__(self, model, num_blocks, block_numel, overlap):
        self.model = model
        self.primary = torch.zeros(num_blocks, block_numel, dtype=torch.float16, device="cuda")
        secondary = torch.empty(num_blocks, block_numel, dtype=torch.float16, pin_memory=True)
        self.transfer = KVCacheTransferManager(self.primary, secondary, overlap)

    def step(self, batch):
        self.transfer.onboard(batch.reused_blocks)
        logits = self.model(batch, self.primary)
        self.transfer.mark_step()
        self.transfer.offload(batch.evicted_blocks, urgent=batch.memory_pressure)
        return logits
