"""A transfer agent in the shape KV-transfer libraries give their Python side: copies go
through the driver's direction-less ``cuMemcpyAsync`` (unified addressing) on a non-blocking
driver stream. For the engine's own pools the direction follows from where the addresses
come from (``data_ptr()`` of a CUDA tensor and of a pinned tensor). ``copy_region`` copies
between raw addresses that outside callers register, whose direction the code cannot show.
Bugs: the offload (GPU to host) and the onboard (host to GPU) are not ordered behind the
compute stream."""

import torch
from cuda.bindings import driver


def _ok(result):
    err, *values = result
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {err}")
    return values[0] if values else None


class RegionCopier:
    def __init__(self, num_gpu_blocks, num_host_blocks, block_bytes):
        self.block_bytes = block_bytes
        self.kv_gpu = torch.empty((num_gpu_blocks, block_bytes), dtype=torch.uint8, device="cuda")
        self.kv_host = torch.empty((num_host_blocks, block_bytes), dtype=torch.uint8, pin_memory=True)
        self.stream = _ok(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))
        self.regions = {}

    def register(self, name, address, nbytes):
        self.regions[name] = (address, nbytes)

    def offload(self, gpu_block, host_slot):
        src = self.kv_gpu.data_ptr() + gpu_block * self.block_bytes
        dst = self.kv_host.data_ptr() + host_slot * self.block_bytes
        # expect: KVG001
        _ok(driver.cuMemcpyAsync(dst, src, self.block_bytes, self.stream))

    def onboard(self, host_slot, gpu_block):
        src = self.kv_host.data_ptr() + host_slot * self.block_bytes
        dst = self.kv_gpu.data_ptr() + gpu_block * self.block_bytes
        # expect: KVG004
        _ok(driver.cuMemcpyAsync(dst, src, self.block_bytes, self.stream))

    def copy_region(self, dst_name, dst_offset, src_name, src_offset, nbytes):
        dst_base, _ = self.regions[dst_name]
        src_base, _ = self.regions[src_name]
        _ok(driver.cuMemcpyAsync(dst_base + dst_offset, src_base + src_offset, nbytes, self.stream))

    def flush(self):
        _ok(driver.cuStreamSynchronize(self.stream))
