import queue
import threading
from typing import List, NamedTuple, Optional, Tuple

import numpy as np
import torch

from kv_export.copy_ops import copy_blocks, export_attributes


class ExportJob(NamedTuple):
    req_ids: List[str]
    gpu_blocks: List[int]
    host_blocks: List[int]


class ExportCopyThread(threading.Thread):
    def __init__(self, device: torch.device, src_bases: np.ndarray, dst_bases: np.ndarray,
                 block_bytes: np.ndarray):
        super().__init__(name="kv-export-copy", daemon=True)
        self.device = device
        self.src_bases, self.dst_bases, self.block_bytes = src_bases, dst_bases, block_bytes
        low, _ = torch.cuda.Stream.priority_range()
        self.stream = torch.cuda.Stream(device=device, priority=low)
        self.attrs = export_attributes()
        self.jobs: "queue.SimpleQueue[Optional[ExportJob]]" = queue.SimpleQueue()
        self.staged: "queue.SimpleQueue[Tuple[List[str], torch.cuda.Event]]" = queue.SimpleQueue()

    def run(self) -> None:
        torch.cuda.set_device(self.device)
        while True:
            job = self.jobs.get()
            if job is None:
                return
            copy_blocks(self.src_bases, self.dst_bases, self.block_bytes, job.gpu_blocks,
                        job.host_blocks, self.attrs, self.stream.cuda_stream)
            staged = torch.cuda.Event()
            staged.record(self.stream)
            self.staged.put((job.req_ids, staged))
