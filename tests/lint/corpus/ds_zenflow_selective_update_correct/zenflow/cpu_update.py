"""The CPU job run in the ZenFlow thread pool for every offloaded step."""

from dataclasses import dataclass

import torch


@dataclass
class OffloadJob:
    states: list
    landed: object  # event recorded on the offload stream after the gradient copies
    apply_update: bool
    lr: float
    betas: tuple
    eps: float


@torch.no_grad()
def accumulate_and_maybe_step(job):
    job.landed.synchronize()
    for st in job.states:
        st.host_accum.add_(st.host_grad.float())
        st.accumulated += 1
    if not job.apply_update:
        return False
    beta1, beta2 = job.betas
    for st in job.states:
        grad = st.host_accum.div_(st.accumulated)
        st.cpu_steps += 1
        st.host_exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        st.host_exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = (st.host_exp_avg_sq / (1 - beta2**st.cpu_steps)).sqrt_().add_(job.eps)
        st.host_master.addcdiv_(st.host_exp_avg, denom, value=-job.lr / (1 - beta1**st.cpu_steps))
        st.host_accum.zero_()
        st.accumulated = 0
    return True
