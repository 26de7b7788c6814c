"""Hybrid device optimizer: a fraction of the parameter groups is stepped by host Adam on fp32
masters, the rest by fused AdamW on the device; a pinned host mirror of the device-stepped
parameters is refreshed after every step for asynchronous checkpoints."""

import torch


class HybridDeviceOptimizer:
    def __init__(self, param_groups, offload_fraction=0.5, lr=1e-4, weight_decay=0.01):
        groups = [list(g) for g in param_groups]
        split = int(len(groups) * offload_fraction)
        self.host_groups = groups[:split]
        self.device_params = [p for g in groups[split:] for p in g]
        self.lr, self.weight_decay = lr, weight_decay

        self.masters = [[p.detach().float().cpu() for p in g] for g in self.host_groups]
        self.host_optimizers = [torch.optim.Adam(m, lr=lr, weight_decay=weight_decay) for m in self.masters]
        self.grad_buffers = [
            [torch.empty(p.shape, dtype=p.dtype, pin_memory=True) for p in g] for g in self.host_groups
        ]
        self.upload_buffers = [
            [torch.empty(p.shape, dtype=p.dtype, pin_memory=True) for p in g] for g in self.host_groups
        ]

        self.exp_avgs = [torch.zeros_like(p) for p in self.device_params]
        self.exp_avg_sqs = [torch.zeros_like(p) for p in self.device_params]
        self.state_steps = [torch.zeros((), dtype=torch.float32, device=p.device) for p in self.device_params]
        self.mirror = [torch.empty(p.shape, dtype=p.dtype, pin_memory=True) for p in self.device_params]

        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.grads_ready = torch.cuda.Event()
        self.mirror_event = torch.cuda.Event()
        self.grad_events = [torch.cuda.Event() for _ in self.host_groups]
        self.param_events = [torch.cuda.Event() for _ in self.host_groups]

    @torch.no_grad()
    def step(self):
        compute = torch.cuda.current_stream()
        # grads of the host-stepped groups go to pinned buffers, one event per group
        self.grads_ready.record()
        self.d2h_stream.wait_event(self.grads_ready)
        with torch.cuda.stream(self.d2h_stream):
            for g, group in enumerate(self.host_groups):
                for p, buf in zip(group, self.grad_buffers[g]):
                    buf.copy_(p.grad, non_blocking=True)
                self.grad_events[g].record()

        # device-stepped params are updated in place once the last mirror copy has read them
        compute.wait_event(self.mirror_event)
        grads = [p.grad for p in self.device_params]
        torch._fused_adamw_(
            self.device_params, grads, self.exp_avgs, self.exp_avg_sqs, [], self.state_steps,
            amsgrad=False, lr=self.lr, beta1=0.9, beta2=0.999, weight_decay=self.weight_decay,
            eps=1e-8, maximize=False,
        )
        with torch.cuda.stream(self.d2h_stream):
            for p, host in zip(self.device_params, self.mirror):
                # expect: KVG001
                host.copy_(p, non_blocking=True)
            self.mirror_event.record()

        # host Adam per group as its grads land, then the new values go back to the device
        for g, group in enumerate(self.host_groups):
            for master, buf in zip(self.masters[g], self.grad_buffers[g]):
                # expect: KVG003
                master.grad = buf.float()
            self.host_optimizers[g].step()
            for buf, master in zip(self.upload_buffers[g], self.masters[g]):
                buf.copy_(master)
            with torch.cuda.stream(self.h2d_stream):
                for p, buf in zip(group, self.upload_buffers[g]):
                    # expect: KVG004
                    p.copy_(buf, non_blocking=True)
                self.param_events[g].record()
        for event in self.param_events:
            torch.cuda.current_stream().wait_event(event)

    def save_mirror(self, path):
        self.mirror_event.synchronize()
        torch.save(self.mirror, path)
