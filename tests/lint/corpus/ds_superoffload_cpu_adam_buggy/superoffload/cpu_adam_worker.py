"""The CPU side: a worker thread that runs Adam on host fp32 masters as gradients arrive."""

import math
import queue
import threading
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class StepTask:
    sub_group_id: int
    grad_host: torch.Tensor
    master: torch.Tensor
    exp_avg: torch.Tensor
    exp_avg_sq: torch.Tensor
    step: int
    grads_landed: object  # device event recorded after the gradient copy


@dataclass
class StepResult:
    sub_group_id: int
    master: torch.Tensor
    skipped: bool = False


class CPUAdamWorker:
    def __init__(self, config):
        self.config = config
        self.tasks = queue.Queue()
        self.results = queue.Queue()
        self._thread: Optional[threading.Thread] = None

    def start(self):
        torch.set_num_threads(self.config.cpuadam_threads)
        self._thread = threading.Thread(target=self._run, name="superoffload-cpuadam", daemon=True)
        self._thread.start()

    def submit(self, task):
        self.tasks.put(task)

    def get_result(self, block=False):
        try:
            return self.results.get(block=block, timeout=self.config.result_poll_timeout_s if block else None)
        except queue.Empty:
            return None

    def close(self):
        self.tasks.put(None)
        if self._thread is not None:
            self._thread.join()

    def _run(self):
        while True:
            task = self.tasks.get()
            if task is None:
                break
            task.grads_landed.synchronize()
            norm = float(task.grad_host.norm())
            if not math.isfinite(norm):
                self.results.put(StepResult(task.sub_group_id, task.master, skipped=True))
                continue
            self._adam(task)
            self.results.put(StepResult(task.sub_group_id, task.master))

    @torch.no_grad()
    def _adam(self, task):
        cfg = self.config
        beta1, beta2 = cfg.betas
        grad = task.grad_host
        if cfg.weight_decay:
            task.master.mul_(1 - cfg.lr * cfg.weight_decay)
        task.exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        task.exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias1 = 1 - beta1**task.step
        bias2 = 1 - beta2**task.step
        denom = (task.exp_avg_sq / bias2).sqrt_().add_(cfg.eps)
        task.master.addcdiv_(task.exp_avg, denom, value=-cfg.lr / bias1)
