"""Activation checkpoint inputs spilled to NVMe in the shape of DeepSpeed's CPU/NVMe
checkpointing: the input of each checkpointed layer is staged into pinned memory on a copy
stream and written out by a background thread."""

import os

import torch

from .nvme_writer import NVMeSpillWriter
from .spill_job import SpillJob


class NVMeActivationCheckpointer:
    def __init__(self, folder, aio_handle):
        self.folder = folder
        self.copy_stream = torch.cuda.Stream()
        self.writer = NVMeSpillWriter(folder, aio_handle)

    def spill(self, layer_id, activation):
        # one pinned buffer per spilled input: the writer owns it until it is on disk
        staging = torch.empty(activation.numel(), dtype=activation.dtype, pin_memory=True)
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            staging.copy_(activation.view(-1), non_blocking=True)
            activation.record_stream(self.copy_stream)
        done = torch.cuda.Event()
        done.record(self.copy_stream)
        path = os.path.join(self.folder, f"layer_{layer_id}.act")
        self.writer.submit(SpillJob(layer_id=layer_id, path=path, staging=staging, copied=done,
                                    meta={"shape": tuple(activation.shape)}))

    def finish(self):
        self.writer.close()
        return dict(self.writer.manifest)
