"""Primary (GPU) and secondary (pinned host) KV block pools with offload and onboard."""

import torch

from kvpool.streams import make_transfer_streams


class KVCacheManager:
    def __init__(self, num_primary, num_secondary, block_shape, dtype=torch.float16, device="cuda"):
        self.primary = torch.zeros((num_primary, *block_shape), dtype=dtype, device=device)
        self.secondary = torch.empty((num_secondary, *block_shape), dtype=dtype, pin_memory=True)
        self.streams = make_transfer_streams(device)
        self.free_primary = list(range(num_primary))
        self.free_secondary = list(range(num_secondary))
        self.host_index = {}

    def free(self, block_ids):
        self.free_primary.extend(block_ids)

    def offload(self, evicted):
        """Copy evicted primary blocks ({block_hash: gpu_id}) to the secondary pool."""
        if not evicted:
            return
        compute = torch.cuda.current_stream()
        self.streams.offload.wait_stream(self.streams.onboard)
        with torch.cuda.stream(self.streams.offload):
            for block_hash, gpu_id in evicted.items():
                host_id = self.free_secondary.pop()
                # expect: KVG001
                self.secondary[host_id].copy_(self.primary[gpu_id], non_blocking=True)
                self.host_index[block_hash] = host_id
        # The freed primary blocks are reused only after the offload has read them.
        compute.wait_stream(self.streams.offload)
        self.free(list(evicted.values()))

    def onboard(self, block_hashes):
        """Bring reused blocks back from the secondary pool; returns their new primary ids."""
        compute = torch.cuda.current_stream()
        self.streams.onboard.wait_stream(self.streams.offload)
        gpu_ids = []
        with torch.cuda.stream(self.streams.onboard):
            for block_hash in block_hashes:
                host_id = self.host_index.pop(block_hash)
                gpu_id = self.free_primary.pop()
                # expect: KVG004
                self.primary[gpu_id].copy_(self.secondary[host_id], non_blocking=True)
                self.free_secondary.append(host_id)
                gpu_ids.append(gpu_id)
        compute.wait_stream(self.streams.onboard)
        return gpu_ids
