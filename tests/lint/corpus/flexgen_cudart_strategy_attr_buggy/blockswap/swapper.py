import torch
from cuda.bindings import runtime as cudart

from .transfers import SwapIn, SwapOut


class KVBlockSwapper:
    def __init__(self, num_gpu_blocks, num_cpu_blocks, block_shape, dtype=torch.float16, device="cuda"):
        self.gpu_pool = torch.zeros((num_gpu_blocks, *block_shape), dtype=dtype, device=device)
        self.cpu_pool = torch.zeros((num_cpu_blocks, *block_shape), dtype=dtype, pin_memory=True)
        self.block_bytes = self.gpu_pool[0].numel() * self.gpu_pool.element_size()
        self.swap_stream = torch.cuda.Stream(device)
        handle = cudart.cudaStream_t(self.swap_stream.cuda_stream)
        self.swap_out_blocks = SwapOut(handle, self.block_bytes)
        self.swap_in_blocks = SwapIn(handle, self.block_bytes)
        self.swap_out_done = torch.cuda.Event()

    def _gpu_ptr(self, block):
        return self.gpu_pool.data_ptr() + block * self.block_bytes

    def _cpu_ptr(self, block):
        return self.cpu_pool.data_ptr() + block * self.block_bytes

    def swap_out(self, mapping):
        """``mapping``: (gpu block, cpu block) pairs of the sequences being preempted."""
        compute = torch.cuda.current_stream()
        self.swap_stream.wait_stream(compute)
        self.swap_out_blocks([self._cpu_ptr(c) for _, c in mapping], [self._gpu_ptr(g) for g, _ in mapping])
        self.swap_out_done.record(self.swap_stream)
        # the freed device blocks go to other sequences, whose next forward overwrites them
        compute.wait_stream(self.swap_stream)

    def swap_in(self, mapping):
        """``mapping``: (cpu block, gpu block) pairs of the sequences being resumed."""
        # the host blocks must have landed before the swap-in may read them out of order
        self.swap_out_done.synchronize()
        compute = torch.cuda.current_stream()
        # the device blocks were just handed over from finished sequences
        self.swap_stream.wait_stream(compute)
        self.swap_in_blocks([self._gpu_ptr(g) for _, g in mapping], [self._cpu_ptr(c) for c, _ in mapping])
        compute.wait_stream(self.swap_stream)
