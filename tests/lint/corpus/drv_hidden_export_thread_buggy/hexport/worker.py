import logging
import queue
import threading
from dataclasses import dataclass
from typing import Callable, Optional

import torch
from cuda.bindings import driver as cu

from .drv import new_event, ok

logger = logging.getLogger(__name__)


@dataclass
class ExportJob:
    request_id: str
    src: torch.Tensor              # [tokens, hidden] rows of the step's hidden states (GPU)
    ready: object = None           # CUevent recorded on the model's stream, if any


class CopyWorker(threading.Thread):
    def __init__(self, max_rows: int, hidden: int, dtype: torch.dtype,
                 deliver: Callable[[str, torch.Tensor], None]):
        super().__init__(name="hidden-export", daemon=True)
        self.jobs: "queue.Queue[Optional[ExportJob]]" = queue.Queue(maxsize=64)
        self.deliver = deliver
        self.stream = ok(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
        self.done = new_event()
        self.staging = torch.empty((max_rows, hidden), dtype=dtype, pin_memory=True)

    def run(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                break
            rows = job.src.shape[0]
            nbytes = job.src.numel() * job.src.element_size()
            # expect: KVG001
            ok(cu.cuMemcpyDtoHAsync(self.staging.data_ptr(), job.src.data_ptr(), nbytes,
                                    self.stream))
            ok(cu.cuEventRecord(self.done, self.stream))
            ok(cu.cuEventSynchronize(self.done))
            if job.ready is not None:
                ok(cu.cuEventDestroy(job.ready))
            self.deliver(job.request_id, self.staging[:rows].clone())
