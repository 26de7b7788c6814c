"""Step of an optimizer whose parameters are updated on the host from offloaded gradients."""

import torch

from .grad_offload import GradOffloader


class HybridDeviceOptimizer:
    def __init__(self, params, cpu_optimizer, num_microbatches):
        self.params = list(params)
        self.cpu_optimizer = cpu_optimizer
        self.num_microbatches = num_microbatches
        self.offloader = GradOffloader(self.params)

    def finish_grad_sync(self):
        # all-reduce of the grad buckets has been queued on the current stream
        pass

    def mark_grads_final(self):
        final = torch.cuda.Event()
        final.record()
        return final

    def scale_gradients(self, factor):
        for p in self.params:
            p.main_grad.mul_(factor)

    @torch.no_grad()
    def step(self):
        self.finish_grad_sync()
        self.scale_gradients(1.0 / self.num_microbatches)
        # recorded after the last kernel that writes main_grad
        future = self.offloader.start(self.mark_grads_final())
        host_grads = future.result()
        self.cpu_optimizer.step_from(host_grads)
        for p in self.params:
            p.main_grad.zero_()
