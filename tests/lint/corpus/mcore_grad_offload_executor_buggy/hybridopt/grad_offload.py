"""Gradients of the CPU-updated parameters go to pinned host buffers on a worker thread, in the
shape of a hybrid device optimizer: the training thread hands the worker an event that marks
the gradients as final."""

from concurrent.futures import ThreadPoolExecutor

import torch


class GradOffloader:
    def __init__(self, params):
        self.params = list(params)
        self.d2h_stream = torch.cuda.Stream()
        self.host_grads = [torch.empty(p.numel(), dtype=torch.float32, pin_memory=True) for p in self.params]
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="grad-d2h")

    def _copy_out(self, grads_final):
        self.d2h_stream.wait_event(grads_final)
        with torch.cuda.stream(self.d2h_stream):
            for p, host in zip(self.params, self.host_grads):
                # expect: KVG001
                host.copy_(p.main_grad.view(-1), non_blocking=True)
        self.d2h_stream.synchronize()
        return self.host_grads

    def start(self, grads_final):
        return self.executor.submit(self._copy_out, grads_final)
