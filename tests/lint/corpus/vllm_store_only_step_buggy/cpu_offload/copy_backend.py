"""Background copy thread: transfers are queued by the worker and issued here, so that the
host-side address computation never delays the model's next step."""

import queue
import threading
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import torch

from cpu_offload import cuda_ops


@dataclass
class TransferJob:
    src_blocks: List[int]
    dst_blocks: List[int]
    params: cuda_ops.BatchParams
    is_store: bool
    event_idx: int
    done_list: List[Tuple[int, torch.cuda.Event]]
    wait_event: Optional[torch.cuda.Event] = None
    done: torch.cuda.Event = field(default_factory=torch.cuda.Event)


class CopyBackend:
    def __init__(self, device: torch.device, load_stream: torch.cuda.Stream,
                 store_stream: torch.cuda.Stream):
        self._queue: "queue.SimpleQueue[Optional[TransferJob]]" = queue.SimpleQueue()
        self._thread = threading.Thread(
            target=self._copy_loop, args=(self._queue, device, load_stream, store_stream),
            name="kv-cpu-offload", daemon=True)
        self._thread.start()

    def submit(self, job: TransferJob) -> None:
        self._queue.put(job)

    def shutdown(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=5.0)

    @staticmethod
    def _copy_loop(q, device, load_stream, store_stream) -> None:
        torch.cuda.set_device(device)
        while True:
            job = q.get()
            if job is None:
                return
            stream = store_stream if job.is_store else load_stream
            if job.wait_event is not None:
                stream.wait_event(job.wait_event)
            cuda_ops.copy_blocks(job.src_blocks, job.dst_blocks, job.params)
            job.done.record(stream)
            job.done_list.append((job.event_idx, job.done))
