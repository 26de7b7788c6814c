"""Uploads adapters into GPU slots on a side stream, from a loader thread, so that a
batch that needs a new adapter does not stall the ones already running."""
import queue
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field

import torch
from numba import cuda

from .store import HostAdapter


@dataclass
class LoadRequest:
    slot: int
    adapter: HostAdapter
    # recorded on the compute stream after the last batch that read the slot
    last_use: torch.cuda.Event
    done: Future = field(default_factory=Future)


class SlotLoader:
    def __init__(self, lora_a: torch.Tensor, lora_b: torch.Tensor):
        self._lora_a = lora_a   # [slots, rank, hidden] on the GPU
        self._lora_b = lora_b   # [slots, hidden, rank]
        self.stream = torch.cuda.Stream()
        self._requests: "queue.Queue[LoadRequest]" = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="lora-loader", daemon=True)
        self._thread.start()

    def submit(self, req: LoadRequest) -> Future:
        self._requests.put(req)
        return req.done

    def _loop(self) -> None:
        nb_stream = cuda.external_stream(self.stream.cuda_stream)
        while True:
            req = self._requests.get()
            try:
                self._upload(req, nb_stream)
            except Exception as exc:  # surfaced to the batch that waits for the adapter
                req.done.set_exception(exc)

    def _upload(self, req: LoadRequest, nb_stream) -> None:
        # the batches that still read the slot's old adapter must finish first
        # (on this thread the current stream is the default one: wait on the copy stream itself)
        self.stream.wait_event(req.last_use)
        dst_a = cuda.as_cuda_array(self._lora_a[req.slot])
        dst_b = cuda.as_cuda_array(self._lora_b[req.slot])
        dst_a.copy_to_device(req.adapter.lora_a, stream=nb_stream)
        dst_b.copy_to_device(req.adapter.lora_b, stream=nb_stream)
        ready = torch.cuda.Event()
        ready.record(self.stream)
        req.done.set_result(ready)
