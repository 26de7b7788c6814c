"""Per-token log-probabilities of a rollout, computed by the policy in a forward-only pipeline and
streamed to pinned host memory microbatch by microbatch, so that the trainer on the CPU side can
pick them up as soon as the schedule finishes."""

import functools

import torch


class LogprobCollector:
    def __init__(self, num_microbatches: int, micro_batch_size: int, seq_length: int, device):
        shape = (num_microbatches, micro_batch_size, seq_length - 1)
        self.device_logprobs = torch.empty(shape, dtype=torch.float32, device=device)
        self.host_logprobs = torch.empty(shape, dtype=torch.float32, pin_memory=True)
        self.d2h_stream = torch.cuda.Stream(device=device)

    def reset(self):
        # the copies of this round go behind everything already queued on the compute stream
        self.d2h_stream.wait_stream(torch.cuda.current_stream())

    def collect(self, microbatch_id: int, logits: torch.Tensor, labels: torch.Tensor):
        logprobs = torch.log_softmax(logits[:, :-1].float(), dim=-1)
        token_logprobs = logprobs.gather(-1, labels[:, 1:].unsqueeze(-1)).squeeze(-1)
        dst = self.device_logprobs[microbatch_id]
        dst.copy_(token_logprobs)
        with torch.cuda.stream(self.d2h_stream):
            # expect: KVG001
            self.host_logprobs[microbatch_id].copy_(dst, non_blocking=True)

    def finalize(self) -> torch.Tensor:
        self.d2h_stream.synchronize()
        return self.host_logprobs.flatten(0, 1).clone()


def _loss_func(collector, microbatch_id, labels, output_tensor):
    collector.collect(microbatch_id, output_tensor, labels)
    return output_tensor


def make_forward_step_func(collector: LogprobCollector):
    def forward_step_func(data_iterator, model, microbatch_id):
        batch = next(data_iterator)
        tokens = batch["tokens"].cuda(non_blocking=True)
        position_ids = batch["position_ids"].cuda(non_blocking=True)
        output_tensor = model(tokens, position_ids, attention_mask=None)
        return output_tensor, functools.partial(_loss_func, collector, microbatch_id, tokens)

    return forward_step_func
