"""The model worker proper: runs the forward and samples into static device buffers (so the
forward can be captured in a CUDA graph)."""

import torch

from overlap_sched.schedule_batch import LogitsProcessorOutput
from overlap_sched.server_args import DEVICE


class TpModelWorker:
    def __init__(self, server_args, model):
        self.model = model
        self.device = DEVICE
        n = server_args.max_running_requests
        self.next_token_ids_buf = torch.zeros((n,), dtype=torch.int64, device=DEVICE)
        self.next_token_logprobs_buf = torch.zeros((n,), dtype=torch.float32, device=DEVICE)

    def forward_batch_generation(self, batch, launch_done=None):
        bs = batch.batch_size
        logits = self.model(batch.input_ids)
        next_token_ids = self.next_token_ids_buf[:bs]
        torch.argmax(logits, dim=-1, out=next_token_ids)
        output = LogitsProcessorOutput(next_token_logits=logits)
        if batch.return_logprob:
            logprobs = self.next_token_logprobs_buf[:bs]
            torch.amax(torch.log_softmax(logits.float(), dim=-1), dim=-1, out=logprobs)
            output.next_token_logprobs = logprobs
        if launch_done is not None:
            launch_done.set()
        return output, next_token_ids
