"""A transfer agent in the shape KV-transfer libraries give their Python side: copies go
through the driver's direction-less ``cuMemcpyAsync`` (unified addressing) on a non-blocking
driver stream. For the engine's own pools the direction follows from where the addresses
come from (``data_ptr()`` of a CUDA tensor and of a pinned tensor). ``copy_region`` copies
between raw addresses that outside callers register. Every copy is ordered behind the
compute stream: the offload and region copies wait on a driver event recorded there, the
onboard is issued after the host synchronised the compute stream."""

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
        self.ready = _ok(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))
        self.regions = {}

    def register(self, name, address, nbytes):
        self.regions[name] = (address, nbytes)

    def _after_compute(self):
        compute = driver.CUstream(torch.cuda.current_stream().cuda_stream)
        _ok(driver.cuEventRecord(self.ready, compute))
        _ok(driver.cuStreamWaitEvent(self.stream, self.ready, 0))

    def offload(self, gpu_block, host_slot):
        self._after_compute()
        src = self.kv_gpu.data_ptr() + gpu_block * self.block_bytes
        dst = self.kv_host.data_ptr() + host_slot * self.block_bytes
        _ok(driver.cuMemcpyAsync(dst, src, self.block_bytes, self.stream))

    def onboard(self, host_slot, gpu_block):
        _ok(driver.cuStreamSynchronize(driver.CUstream(torch.cuda.current_stream().cuda_stream)))
        src = self.kv_host.data_ptr() + host_slot * self.block_bytes
        dst = self.kv_gpu.data_ptr() + gpu_block * self.block_bytes
        _ok(driver.cuMemcpyAsync(dst, src, self.block_bytes, self.stream))

    def copy_region(self, dst_name, dst_offset, src_name, src_offset, nbytes):
        self._after_compute()
        dst_base, _ = self.regions[dst_name]
        src_base, _ = self.regions[src_name]
        _ok(driver.cuMemcpyAsync(dst_base + dst_offset, src_base + src_offset, nbytes, self.stream))

    def flush(self):
        _ok(driver.cuStreamSynchronize(self.stream))
