"""Copies gradients and Adam moments to pinned host buffers on a D2H stream of its own."""

import torch

from .adam import GPUAdam

STATE_KEYS = ("exp_avg", "exp_avg_sq")


class OptimizerStateOffloader:
    def __init__(self, optimizer: GPUAdam):
        self.optimizer = optimizer
        self.d2h_stream = torch.cuda.Stream()
        self.offload_done = torch.cuda.Event()
        self.host_grads = {p: torch.empty(p.shape, dtype=p.dtype, pin_memory=True) for p in optimizer.params}
        self.host_states = {
            (p, key): torch.empty(p.shape, dtype=p.dtype, pin_memory=True)
            for p in optimizer.params
            for key in STATE_KEYS
        }

    def offload(self, grads_ready: torch.cuda.Event):
        """Queue the copies; ``grads_ready`` marks the end of the backward pass."""
        self.d2h_stream.wait_event(grads_ready)
        with torch.cuda.stream(self.d2h_stream):
            for p in self.optimizer.params:
                if p.grad is not None:
                    self.host_grads[p].copy_(p.grad, non_blocking=True)
                    # zero_grad() drops the gradient while this copy may still be reading it
                    p.grad.record_stream(self.d2h_stream)
                for key in STATE_KEYS:
                    # expect: KVG001
                    self.host_states[(p, key)].copy_(self.optimizer.state[p][key], non_blocking=True)
        self.offload_done.record(self.d2h_stream)

    def before_next_backward(self):
        # the next backward overwrites the gradients the copies read
        torch.cuda.current_stream().wait_event(self.offload_done)
