"""Checkpoint engine writing each flat partition with FastFileWriter and the layout with pickle."""
import os
import pickle

import torch

from deepspeed.accelerator import get_accelerator
from deepspeed.ops.op_builder import AsyncIOBuilder


class FastCheckpointEngine:
    def __init__(self, io_buffer_mb=64, block_size=8 << 20, queue_depth=8, thread_count=1):
        self.aio_handle = AsyncIOBuilder().load(verbose=False).aio_handle(
            block_size, queue_depth, False, False, thread_count
        )
        self.pinned_io_buffer = torch.zeros(io_buffer_mb << 20, dtype=torch.uint8).pin_memory()
        self.copy_stream = get_accelerator().Stream()

    def save(self, partitions, save_dir, tag):
        """partitions: name -> flat device tensor."""
        os.makedirs(os.path.join(save_dir, tag), exist_ok=True)
        layout = {}
        for name, flat in partitions.items():
            path = os.path.join(save_dir, tag, f"{name}.bin")
            writer = FastFileWriter(path, self.aio_handle, self.pinned_io_buffer, self.copy_stream)
            writer.write_tensor(flat)
            writer.close()
            layout[name] = (str(flat.dtype), flat.numel())
        with open(os.path.join(save_dir, tag, "layout.pkl"), "wb") as f:
            pickle.dump(layout, f)


from .fast_file_writer import FastFileWriter  # noqa: E402
