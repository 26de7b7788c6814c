"""Common machinery of the activation offload handlers (Megatron-core cpu_offload style)."""

import torch

MIN_OFFLOADED_TENSOR_SIZE = 1024 * 1024


class OffloadHandlerBase:
    """Owns the d2h / h2d streams and the per-tensor offload state.

    A tensor tag maps either to the live device tensor or, once offloaded, to a state tuple
    ``(device, cpu_backup, offload_event)``.
    """

    def __init__(self, d2h_stream, h2d_stream):
        self.d2h_stream = d2h_stream
        self.h2d_stream = h2d_stream
        self._tensor_tag_to_state = {}

    def fence_d2h(self):
        """Make the d2h stream wait for everything the compute stream has queued so far."""
        produced = torch.cuda.Event()
        produced.record(torch.cuda.current_stream())
        self.d2h_stream.wait_event(produced)

    def needs_offload(self, tensor):
        if tensor.numel() < MIN_OFFLOADED_TENSOR_SIZE:
            return False
        return getattr(tensor, "offloading_activation", True)

    def offload(self, tensor):
        cpu_backup = torch.empty(tensor.size(), dtype=tensor.dtype, device="cpu", pin_memory=True)
        with torch.cuda.stream(self.d2h_stream):
            cpu_backup.copy_(tensor, non_blocking=True)
            tensor.record_stream(self.d2h_stream)
            done = torch.cuda.Event()
            done.record(self.d2h_stream)
        return (tensor.device, cpu_backup, done)

    def reload(self, state):
        device, cpu_backup, offloaded = state
        self.h2d_stream.wait_event(offloaded)
        with torch.cuda.stream(self.h2d_stream):
            tensor = cpu_backup.to(device, non_blocking=True)
            ready = torch.cuda.Event()
            ready.record(self.h2d_stream)
        torch.cuda.current_stream().wait_event(ready)
        tensor.record_stream(torch.cuda.current_stream())
        return tensor

    def tensor_push(self, tensor):
        raise NotImplementedError

    def tensor_pop(self, tag):
        state = self._tensor_tag_to_state.pop(tag)
        if isinstance(state, tuple):
            return self.reload(state)
        return state
