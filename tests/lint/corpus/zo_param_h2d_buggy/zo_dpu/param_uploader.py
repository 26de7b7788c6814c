"""Copies updated fp16 weights from pinned host buffers into the live GPU parameters."""
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class UploadRequest:
    host_params: list[torch.Tensor]
    # recorded on the compute stream after the last kernel that reads the parameters
    params_free: torch.cuda.Event


class ParamUploader:
    def __init__(self, params: list[torch.nn.Parameter], stream: torch.cuda.Stream):
        self.params = params
        self.stream = stream
        self._uploaded: Optional[torch.cuda.Event] = None

    def upload(self, req: UploadRequest) -> None:
        with torch.cuda.stream(self.stream):
            for p, host in zip(self.params, req.host_params):
                # expect: KVG004
                p.data.copy_(host, non_blocking=True)
            self._uploaded = torch.cuda.Event()
            self._uploaded.record(self.stream)

    def wait_uploaded(self, compute: torch.cuda.Stream) -> None:
        if self._uploaded is not None:
            compute.wait_event(self._uploaded)
            self._uploaded = None
