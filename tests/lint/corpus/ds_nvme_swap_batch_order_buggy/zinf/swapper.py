import os

import torch
from deepspeed.accelerator import get_accelerator

from .batch_copy import BatchCopier
from .constants import AIO_ALIGNED_BYTES, NUM_SWAP_BUFFERS, SWAP_IN_SRC_ORDER, SWAP_OUT_SRC_ORDER

_STATE_KEYS = ("param", "exp_avg", "exp_avg_sq")


def _aligned(nbytes):
    return (nbytes + AIO_ALIGNED_BYTES - 1) // AIO_ALIGNED_BYTES * AIO_ALIGNED_BYTES


class SubGroupSwapper:
    def __init__(self, swap_folder, aio_handle, max_subgroup_numel, dtype=torch.float32):
        self.swap_folder = swap_folder
        self.aio_handle = aio_handle
        self.max_numel = max_subgroup_numel
        self.elem = torch.tensor([], dtype=dtype).element_size()
        self.slot_bytes = _aligned(max_subgroup_numel * self.elem)
        # the HBM work buffer: param | exp_avg | exp_avg_sq of the sub-group being stepped
        self.work = torch.empty(len(_STATE_KEYS) * max_subgroup_numel, dtype=dtype,
                                device=get_accelerator().current_device_name())
        self.swap_buffers = [
            get_accelerator().pin_memory(torch.empty(len(_STATE_KEYS) * self.slot_bytes, dtype=torch.uint8))
            for _ in range(NUM_SWAP_BUFFERS)
        ]
        self.swap_stream = get_accelerator().Stream()
        self.copier = BatchCopier(self.swap_stream)

    def views(self, numel):
        return {key: self.work[i * self.max_numel:i * self.max_numel + numel] for i, key in enumerate(_STATE_KEYS)}

    def _path(self, sub_group_id):
        return os.path.join(self.swap_folder, f"subgroup_{sub_group_id}.swp")

    def _layout(self, buf, numel):
        host_ptrs = [buf.data_ptr() + i * self.slot_bytes for i in range(len(_STATE_KEYS))]
        dev_ptrs = [self.work.data_ptr() + i * self.max_numel * self.elem for i in range(len(_STATE_KEYS))]
        sizes = [numel * self.elem] * len(_STATE_KEYS)
        return host_ptrs, dev_ptrs, sizes

    def swap_in(self, sub_group_id, numel):
        buf = self.swap_buffers[sub_group_id % NUM_SWAP_BUFFERS]
        self.aio_handle.sync_pread(buf, self._path(sub_group_id))
        host_ptrs, dev_ptrs, sizes = self._layout(buf, numel)
        # the previous sub-group's step may still be using the work buffer
        self.swap_stream.wait_stream(get_accelerator().current_stream())
        self.copier.copy(dev_ptrs, host_ptrs, sizes, SWAP_IN_SRC_ORDER)
        get_accelerator().current_stream().wait_stream(self.swap_stream)
        return self.views(numel)

    def swap_out(self, sub_group_id, numel):
        buf = self.swap_buffers[sub_group_id % NUM_SWAP_BUFFERS]
        host_ptrs, dev_ptrs, sizes = self._layout(buf, numel)
        # the optimizer step that updated the work buffer is queued on the compute stream
        self.swap_stream.wait_stream(get_accelerator().current_stream())
        self.copier.copy(host_ptrs, dev_ptrs, sizes, SWAP_OUT_SRC_ORDER)
        self.swap_stream.synchronize()
        self.aio_handle.sync_pwrite(buf, self._path(sub_group_id))
