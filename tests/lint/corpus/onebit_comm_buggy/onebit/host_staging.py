# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Pinned host staging for MPI libraries that cannot read device memory."""

from typing import Dict, Tuple

import cupy
import cupyx
import numpy as np


class HostStaging(object):

    def __init__(self):
        self.stream = cupy.cuda.Stream(non_blocking=True)
        self._buffers: Dict[Tuple[str, int], np.ndarray] = {}

    def buffer(self, name: str, size: int, dtype) -> np.ndarray:
        key = (name, size)
        if key not in self._buffers:
            self._buffers[key] = cupyx.empty_pinned((size, ), dtype=dtype)
        return self._buffers[key]

    def stage_sign(self, chunk: cupy.ndarray) -> np.ndarray:
        out = self.buffer("sign", chunk.size, chunk.dtype)
        # expect: KVG001
        chunk.get(stream=self.stream, out=out, blocking=False)
        return out

    def stage_scale(self, scale: cupy.ndarray) -> np.ndarray:
        # expect: KVG001
        return cupy.asnumpy(scale, stream=self.stream)

    def wait(self) -> None:
        self.stream.synchronize()
