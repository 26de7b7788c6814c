"""CPU Adam run on a worker thread while the GPU computes the next iteration."""
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import torch

from .zo_config import ADAM_BETAS, ADAM_EPS, CPU_ADAM_WORKERS, PIN_MEMORY


@dataclass
class StepJob:
    step: int
    host_grads: list[torch.Tensor]
    grads_ready: torch.cuda.Event
    fp16_out: list[torch.Tensor] = field(default_factory=list)


class CPUAdamWorker:
    def __init__(self, masters: list[torch.Tensor], lr: float):
        self.masters = masters
        self.lr = lr
        self.exp_avg = [torch.zeros_like(m) for m in masters]
        self.exp_avg_sq = [torch.zeros_like(m) for m in masters]
        self._executor = ThreadPoolExecutor(max_workers=CPU_ADAM_WORKERS, thread_name_prefix="cpu-adam")

    def submit(self, job: StepJob) -> "Future[StepJob]":
        return self._executor.submit(self._run, job)

    @torch.no_grad()
    def _run(self, job: StepJob) -> StepJob:
        job.grads_ready.synchronize()
        b1, b2 = ADAM_BETAS
        for master, g16, m, v in zip(self.masters, job.host_grads, self.exp_avg, self.exp_avg_sq):
            grad = g16.float()
            m.mul_(b1).add_(grad, alpha=1 - b1)
            v.mul_(b2).addcmul_(grad, grad, value=1 - b2)
            denom = (v / (1 - b2 ** job.step)).sqrt_().add_(ADAM_EPS)
            master.addcdiv_(m, denom, value=-self.lr / (1 - b1 ** job.step))
            out = torch.empty(master.shape, dtype=torch.float16, pin_memory=PIN_MEMORY)
            out.copy_(master)
            job.fp16_out.append(out)
        return job

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
