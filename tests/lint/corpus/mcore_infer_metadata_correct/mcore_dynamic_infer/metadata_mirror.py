# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import Dict

import torch
from cuda.bindings import driver

from .constants import METADATA_COPY_FLAGS, METADATA_FIELDS, METADATA_SRC_ACCESS_ORDER
from .cuda_driver_utils import (
    as_cu_stream,
    check,
    create_event,
    create_stream,
    device_to_host_attributes,
    tensor_ptr,
)

logger = logging.getLogger(__name__)


class HostMetadataMirror:
    """Pinned host copies of the per-request metadata the scheduler reads after each step."""

    def __init__(self, device_tensors: Dict[str, torch.Tensor]):
        self._device_tensors = device_tensors
        self.device = next(iter(device_tensors.values())).device
        self.host: Dict[str, torch.Tensor] = {
            name: torch.empty(t.shape, dtype=t.dtype, device="cpu", pin_memory=True)
            for name, t in device_tensors.items()
        }
        self._stream = create_stream()
        self._producer_done = create_event()
        self._pull_done = create_event()
        self._attrs = device_to_host_attributes(
            METADATA_SRC_ACCESS_ORDER, METADATA_COPY_FLAGS, self.device.index or 0
        )

    def pull(self, num_requests: int, producer: torch.cuda.Stream) -> None:
        """Queues the copy of the first `num_requests` entries of every field."""
        dsts, srcs, sizes = [], [], []
        for name in METADATA_FIELDS:
            src = self._device_tensors[name]
            nbytes = num_requests * src.element_size()
            if nbytes == 0:
                continue
            dsts.append(tensor_ptr(self.host[name]))
            srcs.append(tensor_ptr(src))
            sizes.append(nbytes)
        if not sizes:
            return
        check(driver.cuEventRecord(self._producer_done, as_cu_stream(producer)))
        check(driver.cuStreamWaitEvent(self._stream, self._producer_done, 0))
        check(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [self._attrs], [0], 1, self._stream))
        check(driver.cuEventRecord(self._pull_done, self._stream))
        logger.debug("queued metadata pull of %d requests (%d bytes)", num_requests, sum(sizes))

    def wait(self) -> None:
        check(driver.cuEventSynchronize(self._pull_done))
