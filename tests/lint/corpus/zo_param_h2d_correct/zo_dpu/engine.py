"""Training engine: GPU forward/backward of step t overlaps the CPU Adam of step t - 1."""
from concurrent.futures import Future
from typing import Callable, Optional

import torch
import torch.nn as nn

from .cpu_adam import CPUAdamWorker, StepJob
from .param_uploader import ParamUploader, UploadRequest
from .zo_config import PIN_MEMORY


class ZeroOffloadEngine:
    def __init__(self, model: nn.Module, lr: float, device="cuda"):
        self.device = torch.device(device)
        self.model = model.to(self.device).half()
        self.params = [p for p in self.model.parameters() if p.requires_grad]
        self.streams = {
            "reduction": torch.cuda.Stream(device=self.device),
            "h2d": torch.cuda.Stream(device=self.device),
        }
        masters = [p.detach().float().cpu().pin_memory() for p in self.params]
        self.host_grads = [torch.empty(p.shape, dtype=p.dtype, pin_memory=PIN_MEMORY) for p in self.params]
        self.worker = CPUAdamWorker(masters, lr)
        self.uploader = ParamUploader(self.params, self.streams["h2d"])
        self._pending: Optional["Future[StepJob]"] = None
        self._step = 0

    def _offload_grads(self) -> torch.cuda.Event:
        stream = self.streams["reduction"]
        stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(stream):
            for p, host in zip(self.params, self.host_grads):
                host.copy_(p.grad, non_blocking=True)
                p.grad.record_stream(stream)
                p.grad = None
            ready = torch.cuda.Event()
            ready.record(stream)
        return ready

    def _apply_pending(self) -> None:
        if self._pending is None:
            return
        job = self._pending.result()
        self._pending = None
        params_free = torch.cuda.Event()
        params_free.record(torch.cuda.current_stream(self.device))
        self.uploader.upload(UploadRequest(job.fp16_out, params_free))

    def train_step(self, batch: torch.Tensor, loss_fn: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
        compute = torch.cuda.current_stream(self.device)
        self.uploader.wait_uploaded(compute)
        loss = loss_fn(self.model(batch))
        loss.backward()
        # DPU: install the weights from step t - 1 before staging this step's grads
        self._apply_pending()
        self._step += 1
        grads_ready = self._offload_grads()
        self._pending = self.worker.submit(StepJob(self._step, self.host_grads, grads_ready))
        return loss.detach()

    def finalize(self) -> None:
        self._apply_pending()
        self.uploader.wait_uploaded(torch.cuda.current_stream(self.device))
        self.worker.shutdown()
