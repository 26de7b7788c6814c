"""Moves reduced gradient chunks to the host on a dedicated chunk stream."""
import torch

from .grad_chunk import GradChunk
from .placement_config import HOST_GRAD_DTYPE


class AsyncGradOffloader:
    def __init__(self, device):
        self.device = torch.device(device)
        self.stream = torch.cuda.Stream(device=self.device)

    def offload(self, chunk: GradChunk) -> None:
        """Called from the post-backward hook once every grad of `chunk` is reduced."""
        grad = chunk.cuda_grad
        self.stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(self.stream):
            host = grad.to("cpu", dtype=HOST_GRAD_DTYPE, non_blocking=True)
            done = torch.cuda.Event()
            done.record(self.stream)
        grad.record_stream(self.stream)
        chunk.cuda_grad = None
        chunk.attach_host_grad(host, done)
