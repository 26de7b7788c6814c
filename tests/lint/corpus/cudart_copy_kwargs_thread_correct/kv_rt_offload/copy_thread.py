import queue
import threading
from typing import Any, NamedTuple, Optional

import torch

from kv_rt_offload.cudart_copy import batch_copy


class CopyRequest(NamedTuple):
    job_id: int
    dsts: list[int]
    srcs: list[int]
    sizes: list[int]
    stream: torch.cuda.Stream
    ready: torch.cuda.Event  # recorded on the compute stream by the requester
    done: torch.cuda.Event
    copy_kwargs: dict[str, Any]


class CopyThread(threading.Thread):
    def __init__(self, device: torch.device):
        super().__init__(name="kv-rt-offload", daemon=True)
        self.device = device
        self.requests: "queue.Queue[Optional[CopyRequest]]" = queue.Queue()
        self.issued: "queue.SimpleQueue[CopyRequest]" = queue.SimpleQueue()

    def run(self) -> None:
        torch.cuda.set_device(self.device)
        while True:
            req = self.requests.get()
            if req is None:
                return
            req.stream.wait_event(req.ready)
            batch_copy(req.dsts, req.srcs, req.sizes, req.stream.cuda_stream, **req.copy_kwargs)
            req.done.record(req.stream)
            self.issued.put(req)
