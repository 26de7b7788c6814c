"""ZenFlow selective optimizer: device step of the important columns, offload of the rest."""

from concurrent.futures import ThreadPoolExecutor

import torch

from zenflow.cpu_update import OffloadJob, accumulate_and_maybe_step
from zenflow.selection import select_columns
from zenflow.state import ColumnState


class ZenFlowSelectiveOptimizer:
    def __init__(self, params, config):
        self.config = config
        self.states = [ColumnState(p, config.num_important(p.shape[1])) for p in params if p.dim() == 2]
        for st in self.states:
            st.allocate()
        self.offload_stream = torch.cuda.Stream()
        self.offload_done = torch.cuda.Event()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="zenflow-cpu")
        self.pending = None
        self.step_id = 0

    def _reselect(self, st):
        st.important_idx, st.rest_idx = select_columns(st.param.grad, st.num_important)
        st.rest_idx_host = st.rest_idx.cpu()
        st.host_master.copy_(st.param.detach()[:, st.rest_idx].float())

    def _device_step(self, st):
        beta1, beta2 = self.config.betas
        grad = st.param.grad[:, st.important_idx].float()
        st.gpu_steps += 1
        st.gpu_exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        st.gpu_exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = (st.gpu_exp_avg_sq / (1 - beta2**st.gpu_steps)).sqrt_().add_(self.config.eps)
        update = st.gpu_exp_avg / denom * (-self.config.lr / (1 - beta1**st.gpu_steps))
        st.param.data.index_add_(1, st.important_idx, update.to(st.param.dtype))

    def _finish_pending(self):
        if self.pending is None:
            return
        applied = self.pending.result()
        self.pending = None
        if applied:
            for st in self.states:
                cols = st.host_master.to(st.param.device, non_blocking=True).to(st.param.dtype)
                st.param.data.index_copy_(1, st.rest_idx, cols)

    @torch.no_grad()
    def step(self):
        self.step_id += 1
        if self.step_id == 1 or self.step_id % self.config.select_interval == 0:
            self._finish_pending()
            for st in self.states:
                self._reselect(st)
        # the staging buffers are rewritten below: the previous offload must have read them
        torch.cuda.current_stream().wait_event(self.offload_done)
        for st in self.states:
            self._device_step(st)
            torch.index_select(st.param.grad, 1, st.rest_idx, out=st.stage)
        # the pinned gradients are rewritten below: the previous CPU job must be done with them
        self._finish_pending()
        with torch.cuda.stream(self.offload_stream):
            for st in self.states:
                # expect: KVG001
                st.host_grad.copy_(st.stage, non_blocking=True)
            self.offload_done.record()
        job = OffloadJob(
            states=self.states,
            landed=self.offload_done,
            apply_update=self.step_id % self.config.update_interval == 0,
            lr=self.config.lr,
            betas=self.config.betas,
            eps=self.config.eps,
        )
        self.pending = self.executor.submit(accumulate_and_maybe_step, job)
        if not self.config.overlap_step:
            self._finish_pending()

    def zero_grad(self):
        for st in self.states:
            st.param.grad = None
