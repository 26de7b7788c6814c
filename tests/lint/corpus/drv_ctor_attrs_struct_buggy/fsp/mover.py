"""A batch mover that builds its copy attributes once, in the constructor, field by field on a
struct it keeps, and hands them to every store. Bug: the stores ask for source access order
DURING_API_CALL, so the driver may read the GPU blocks before the kernels queued ahead of the
copy on its stream have written them."""

import torch
from cuda.bindings import driver


class BlockMover:
    def __init__(self, gpu_cache, cpu_cache):
        self.gpu_cache = gpu_cache
        self.cpu_cache = cpu_cache
        self.stream = torch.cuda.Stream()
        self.attrs = driver.CUmemcpyAttributes()
        self.attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL
        self.attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE

    def store(self, gpu_blocks, cpu_blocks):
        nbytes = self.gpu_cache.stride(0) * self.gpu_cache.element_size()
        srcs = [self.gpu_cache.data_ptr() + b * nbytes for b in gpu_blocks]
        dsts = [self.cpu_cache.data_ptr() + b * nbytes for b in cpu_blocks]
        self.stream.wait_stream(torch.cuda.current_stream())
        handle = driver.CUstream(self.stream.cuda_stream)
        # expect: KVG002
        driver.cuMemcpyBatchAsync(dsts, srcs, [nbytes] * len(srcs), len(srcs), [self.attrs], [0], 1, handle)


def make_mover(num_blocks, block_elems):
    gpu = torch.zeros(num_blocks, block_elems, device="cuda")
    cpu = torch.empty(num_blocks, block_elems, pin_memory=True)
    return BlockMover(gpu, cpu)
