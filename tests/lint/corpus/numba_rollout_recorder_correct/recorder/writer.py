"""Copies sealed rollouts to pinned host arrays on the export stream and saves them."""
import logging
import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, Optional

import numpy as np
from numba import cuda

from .config import RecorderConfig
from .storage import RolloutStorage
from .streams import export_stream, numba_stream

logger = logging.getLogger(__name__)


class RolloutRecorder:
    def __init__(self, config: RecorderConfig, storage: RolloutStorage):
        self.config = config
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rollout-rec")
        self._pending: Optional[Future] = None
        # pinned mirrors of every storage tensor, allocated once
        self._host: Dict[str, np.ndarray] = {
            name: cuda.pinned_array(tuple(t.shape), dtype=np.dtype(str(t.dtype).replace("torch.", "")))
            for name, t in storage.tensors().items()
        }
        os.makedirs(config.out_dir, exist_ok=True)

    def submit(self, storage: RolloutStorage, iteration: int) -> None:
        self.wait()
        self._pending = self._pool.submit(self._record, storage, iteration)

    def wait(self) -> None:
        """Block until the previous rollout is on the host (its GPU storage may then be reused)."""
        if self._pending is not None:
            self._pending.result()
            self._pending = None

    def _record(self, storage: RolloutStorage, iteration: int) -> str:
        stream = export_stream(storage.device.index or 0)
        stream.wait_event(storage.sealed)
        nb = numba_stream(stream)
        for name, tensor in storage.tensors().items():
            cuda.as_cuda_array(tensor).copy_to_host(self._host[name], stream=nb)
        nb.synchronize()
        path = os.path.join(self.config.out_dir, f"rollout_{iteration:06d}.npz")
        save = np.savez_compressed if self.config.compress else np.savez
        save(path, **self._host)
        logger.debug("recorded rollout %d to %s", iteration, path)
        return path

    def close(self) -> None:
        self.wait()
        self._pool.shutdown(wait=True)
