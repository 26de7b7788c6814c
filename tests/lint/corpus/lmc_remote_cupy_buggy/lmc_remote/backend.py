from __future__ import annotations

import logging
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from typing import List

import cupy
import numpy as np
import torch

from lmc_remote.config import RemoteBackendConfig
from lmc_remote.connection import RemoteConnection
from lmc_remote.staging import CupyStagingBuffer

logger = logging.getLogger(__name__)


class RemoteBackend:
    def __init__(self, config: RemoteBackendConfig):
        self.config = config
        self.connection = RemoteConnection(config.remote_url)
        self.staging = CupyStagingBuffer()
        self.executor = ThreadPoolExecutor(
            max_workers=config.num_io_workers, thread_name_prefix="lmc-remote"
        )

    def _record_compute_ready(self) -> cupy.cuda.Event:
        compute = cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
        ready = cupy.cuda.Event(disable_timing=True)
        ready.record(compute)
        return ready

    def batched_submit_put_task(self, keys: List[str], tensors: List[torch.Tensor]) -> List[Future]:
        ready = self._record_compute_ready()
        inline, staged = [], []
        for key, tensor in zip(keys, tensors):
            nbytes = tensor.numel() * tensor.element_size()
            (inline if nbytes < self.config.inline_threshold_bytes else staged).append((key, tensor))

        futures = []
        for key, tensor in inline:
            payload = self.staging.fetch_small(tensor)
            futures.append(self.executor.submit(self.connection.send, key, payload.tobytes()))
        for key, tensor in staged:
            host, done = self.staging.stage(tensor, ready)
            futures.append(self.executor.submit(self._put_blocking, key, host, done))
        logger.debug("Submitted %d inline and %d staged puts", len(inline), len(staged))
        return futures

    def _put_blocking(self, key: str, host: np.ndarray, done: cupy.cuda.Event) -> None:
        crc = 0
        if self.config.verify_checksum:
            done.synchronize()
            crc = zlib.crc32(host)
        # expect: KVG003
        self.connection.send(key, host.tobytes(), crc)

    def close(self) -> None:
        self.executor.shutdown(wait=True)
        self.connection.close()
