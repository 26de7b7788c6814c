import torch

from .readback import ExpertLoadReadback


class MoeStepRunner:
    """Runs a forward step and samples expert routing counts every few steps."""

    def __init__(self, model, readback: ExpertLoadReadback, sample_every: int = 8):
        self.model = model
        self.readback = readback
        self.sample_every = sample_every
        self.counters = torch.zeros(readback.shape, dtype=torch.int32, device="cuda")
        self._iter = 0

    @torch.inference_mode()
    def run(self, batch):
        self.counters.zero_()
        logits = self.model(batch, expert_counts=self.counters)
        self._iter += 1
        if self._iter % self.sample_every == 0:
            stream = torch.cuda.current_stream().cuda_stream
            self.readback.snapshot(self.counters.data_ptr(), stream)
        return logits
