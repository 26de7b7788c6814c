"""Request loop: take a loaded batch, order the compute stream behind its copy, replay."""
from typing import Iterable, Iterator

import numpy as np
import torch
from cuda.bindings import runtime as cudart

from .cudart_utils import ok
from .loader import InputLoader
from .runner import GraphRunner


class GraphServer:
    def __init__(self, model: torch.nn.Module, max_batch: int, seq_len: int, hidden: int):
        self.runner = GraphRunner(model, max_batch, seq_len, hidden)
        self.runner.capture()
        self.loader = InputLoader(self.runner.static_input)
        # the static input is free once capture's work on the current stream has run
        captured = torch.cuda.Event()
        captured.record()
        self.loader.release(captured)
        self.loader.start()

    def serve(self, batches: Iterable[np.ndarray]) -> Iterator[np.ndarray]:
        pending = 0
        it = iter(batches)
        for batch in it:                      # keep one request in flight in the loader
            self.loader.submit(batch)
            pending += 1
            break
        while pending:
            nxt = next(it, None)
            if nxt is not None:
                self.loader.submit(nxt)
                pending += 1
            n, loaded = self.loader.ready.get()
            compute = torch.cuda.current_stream()
            ok(cudart.cudaStreamWaitEvent(compute.cuda_stream, loaded, 0))
            probs = self.runner.replay(n)
            consumed = torch.cuda.Event()
            consumed.record(compute)
            self.loader.release(consumed)
            pending -= 1
            yield probs.cpu().numpy()
        self.loader.stop()
