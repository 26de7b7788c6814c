"""Device side of the offloaded step: gradient offload, result polling, parameter upload."""

import torch
from deepspeed.accelerator import get_accelerator

from superoffload.cpu_adam_worker import CPUAdamWorker, StepTask


class SuperOffloadOptimizer:
    def __init__(self, sub_groups, config):
        self.sub_groups = sub_groups
        self.config = config
        acc = get_accelerator()
        self.d2h_stream = acc.Stream()
        self.h2d_stream = acc.Stream()
        # one fp32 staging buffer on the device, reused by every sub-group's upload
        max_numel = max(g.numel for g in sub_groups)
        self.staging = torch.empty(max_numel, dtype=torch.float32, device=acc.current_device_name())
        self.worker = CPUAdamWorker(config)
        self.worker.start()
        self.step_count = 1
        self.inflight = 0

    def on_sub_group_ready(self, group):
        """Called from the backward hooks once every gradient of ``group`` is accumulated."""
        acc = get_accelerator()
        self.d2h_stream.wait_stream(acc.current_stream())
        with acc.stream(self.d2h_stream):
            group.grad_host.copy_(group.flat_grad, non_blocking=True)
            landed = acc.Event()
            landed.record()
        self.worker.submit(
            StepTask(
                sub_group_id=group.index,
                grad_host=group.grad_host,
                master=group.master,
                exp_avg=group.exp_avg,
                exp_avg_sq=group.exp_avg_sq,
                step=self.step_count,
                grads_landed=landed,
            )
        )
        self.inflight += 1
        self.poll_results()

    def poll_results(self, block=False):
        while self.inflight:
            result = self.worker.get_result(block=block)
            if result is None:
                return
            self.inflight -= 1
            if not result.skipped:
                self._upload(self.sub_groups[result.sub_group_id], result.master)

    def _upload(self, group, master):
        acc = get_accelerator()
        staging = self.staging.narrow(0, 0, group.numel)
        # the previous sub-group's cast out of the staging buffer may still be queued on the
        # compute stream
        self.h2d_stream.wait_stream(acc.current_stream())
        with acc.stream(self.h2d_stream):
            staging.copy_(master, non_blocking=True)
            uploaded = acc.Event()
            uploaded.record()
        # the cast into the low-precision parameters runs on the compute stream
        acc.current_stream().wait_event(uploaded)
        group.flat_param.copy_(staging)

    def step(self):
        self.poll_results(block=True)
        get_accelerator().current_stream().wait_stream(self.h2d_stream)
        for group in self.sub_groups:
            group.reset()
        self.step_count += 1
