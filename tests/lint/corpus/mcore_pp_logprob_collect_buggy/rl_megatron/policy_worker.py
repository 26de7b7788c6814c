"""The policy worker of an RL loop: computes the reference log-probabilities of a rollout batch
with the Megatron model."""

import torch

from .logprobs import LogprobCollector, make_forward_step_func
from .schedules import forward_only_pipelining


class MegatronPolicyWorker:
    def __init__(self, model, pp, micro_batch_size: int, seq_length: int, hidden_size: int,
                 params_dtype=torch.bfloat16):
        self.model = model
        self.pp = pp
        self.micro_batch_size = micro_batch_size
        self.seq_length = seq_length
        self.hidden_size = hidden_size
        self.params_dtype = params_dtype
        self._collectors = {}

    def _collector(self, num_microbatches: int) -> LogprobCollector:
        if num_microbatches not in self._collectors:
            self._collectors[num_microbatches] = LogprobCollector(
                num_microbatches, self.micro_batch_size, self.seq_length, torch.cuda.current_device())
        return self._collectors[num_microbatches]

    @torch.no_grad()
    def get_logprobs(self, microbatches: list) -> torch.Tensor | None:
        collector = self._collector(len(microbatches))
        collector.reset()
        self.model.eval()
        forward_only_pipelining(
            forward_step_func=make_forward_step_func(collector),
            data_iterator=iter(microbatches),
            model=self.model,
            num_microbatches=len(microbatches),
            tensor_shape=(self.seq_length, self.micro_batch_size, self.hidden_size),
            dtype=self.params_dtype,
            pp=self.pp,
        )
        if not self.pp.is_last_stage:
            return None
        return collector.finalize()
