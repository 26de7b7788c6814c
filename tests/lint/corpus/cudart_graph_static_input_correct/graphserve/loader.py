"""Loader thread: pinned staging + cudaMemcpyAsync into the graph's static input."""
import queue
import threading

import numpy as np
import torch
from cuda.bindings import runtime as cudart

from .cudart_utils import nonblocking_stream, ok, pinned_empty, sync_event


class InputLoader(threading.Thread):
    def __init__(self, static_input: torch.Tensor):
        super().__init__(name="graph-input-loader", daemon=True)
        self.dst_ptr = static_input.data_ptr()
        self.max_batch = static_input.shape[0]
        self.row_bytes = static_input[0].numel() * static_input.element_size()
        self.staging = pinned_empty(tuple(static_input.shape), np.float16)
        self.stream = nonblocking_stream()
        self.loaded = sync_event()
        self.requests: "queue.Queue" = queue.Queue()
        self.ready: "queue.Queue" = queue.Queue(maxsize=1)
        # one event per replay, recorded on the compute stream after the graph was launched:
        # the graph reads the static input when it *runs*, not when replay() returns
        self._input_free: "queue.Queue[torch.cuda.Event]" = queue.Queue()

    def submit(self, batch: np.ndarray) -> None:
        if batch.shape[0] > self.max_batch:
            raise ValueError(f"batch of {batch.shape[0]} > graph batch {self.max_batch}")
        self.requests.put(batch)

    def release(self, consumed: torch.cuda.Event) -> None:
        """Called by the server with an event recorded after the replay that read the input."""
        self._input_free.put(consumed)

    def stop(self) -> None:
        self.requests.put(None)

    def run(self) -> None:
        while True:
            batch = self.requests.get()
            if batch is None:
                self.ready.put(None)
                return
            n = batch.shape[0]
            np.copyto(self.staging[:n], batch, casting="same_kind")
            consumed = self._input_free.get()
            ok(cudart.cudaStreamWaitEvent(self.stream, consumed.cuda_event, 0))
            ok(cudart.cudaMemcpyAsync(self.dst_ptr, self.staging.ctypes.data, n * self.row_bytes,
                                      cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, self.stream))
            ok(cudart.cudaEventRecord(self.loaded, self.stream))
            # the staging buffer is refilled for the next request
            ok(cudart.cudaStreamSynchronize(self.stream))
            self.ready.put((n, self.loaded))
