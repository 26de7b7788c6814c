# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import ctypes
import pickle
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List

import torch

from deepspeed.utils import logger

from . import cudart as rt
from .config import SnapshotConfig
from .staging import PinnedStagingArena


class AsyncSnapshotCheckpointEngine(object):
    """Snapshots device tensors into pinned memory and persists them off the training thread."""

    def __init__(self, config: SnapshotConfig):
        self.config = config
        self.copy_stream = rt.stream_create()
        self.fence = rt.event_create()
        self.arena = PinnedStagingArena(config.arena_bytes)
        self._executor = ThreadPoolExecutor(max_workers=config.io_workers, thread_name_prefix="ds_snapshot")
        self._futures: List[Future] = []
        self._live: List[Dict[str, torch.Tensor]] = []

    def save(self, state_dict: Dict[str, torch.Tensor], path: str) -> None:
        self.commit()
        tensors = {k: v.detach().contiguous() for k, v in state_dict.items() if torch.is_tensor(v) and v.is_cuda}
        sizes = [t.numel() * t.element_size() for t in tensors.values()]
        views = self.arena.carve(sizes)

        compute = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        rt.event_record(self.fence, compute)
        rt.stream_wait_event(self.copy_stream, self.fence)

        if len(tensors) >= self.config.batch_threshold:
            device = torch.cuda.current_device()
            attrs = rt.make_d2h_attrs(self.config.src_access_order, device, self.config.prefer_overlap)
            rt.memcpy_batch_async([v.data_ptr() for v in views], [t.data_ptr() for t in tensors.values()], sizes,
                                  attrs, self.copy_stream)
        else:
            for view, t, size in zip(views, tensors.values(), sizes):
                rt.memcpy_d2h_async(view.data_ptr(), t.data_ptr(), size, self.copy_stream)

        meta = {k: (tuple(t.shape), str(t.dtype), size) for (k, t), size in zip(tensors.items(), sizes)}
        self._live.append(tensors)
        self._futures.append(self._executor.submit(self._persist, path, meta, views))

    def _persist(self, path: str, meta: Dict, views: List[torch.Tensor]) -> str:
        rt.stream_synchronize(self.copy_stream)
        with open(path, "wb") as fh:
            pickle.dump(meta, fh)
            for view in views:
                fh.write(memoryview(view.numpy()))
        return path

    def commit(self) -> bool:
        for fut in self._futures:
            logger.info(f"snapshot persisted: {fut.result()}")
        self._futures.clear()
        rt.stream_synchronize(self.copy_stream)
        self._live.clear()
        return True
