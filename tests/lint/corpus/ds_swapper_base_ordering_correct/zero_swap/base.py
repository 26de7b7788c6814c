"""Common machinery of the NVMe swappers: pinned staging buffers, a swap stream, and the rule
that a swap-out starts only after the optimizer step that produced its tensors."""

import torch
from deepspeed.accelerator import get_accelerator


class AsyncTensorSwapperBase:
    def __init__(self, aio_handle, numel, num_buffers, dtype=torch.float32):
        self.accel = get_accelerator()
        self.aio_handle = aio_handle
        self.swap_stream = self.accel.Stream()
        self.buffers = [
            torch.zeros(numel, dtype=dtype, device="cpu").pin_memory() for _ in range(num_buffers)
        ]
        self.swap_out_calls = 0

    def _begin_swap_out(self):
        """Subclasses that override this must call it: it is what keeps the swap stream behind
        the kernels that wrote the tensors being swapped out."""
        produced = self.accel.Event()
        produced.record(self.accel.current_stream())
        self.swap_stream.wait_event(produced)

    def _stage(self, tensors):
        with self.accel.stream(self.swap_stream):
            for buf, t in zip(self.buffers, tensors):
                buf.narrow(0, 0, t.numel()).copy_(t.view(-1), non_blocking=True)

    def swap_out(self, tensors, paths):
        self._begin_swap_out()
        self._stage(tensors)
        self.swap_stream.synchronize()
        for buf, t, path in zip(self.buffers, tensors, paths):
            self.aio_handle.async_pwrite(buf.narrow(0, 0, t.numel()), path)
        self.aio_handle.wait()
