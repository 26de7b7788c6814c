"""Accumulate micro-batch gradients in host memory (numpy) across gradient-accumulation steps."""
from __future__ import annotations

from typing import Iterable

import numpy as np
import torch
from cuda.bindings import driver

from .batch_copy import BatchedD2HCopy
from .constants import TORCH_TO_NUMPY_DTYPE
from .cuda_utils import checkCudaErrors, create_event, create_stream, torch_stream_handle


class HostGradAccumulator:
    """Keeps the running gradient sum on the host so only one micro-batch of grads lives on device."""

    def __init__(self, named_parameters: Iterable[tuple[str, torch.nn.Parameter]]) -> None:
        self._params = {n: p for n, p in named_parameters if p.requires_grad}
        device = next(iter(self._params.values())).device
        self._pinned = {
            n: torch.empty(p.shape, dtype=p.dtype, device="cpu", pin_memory=True) for n, p in self._params.items()
        }
        self._host_views = {n: t.numpy() for n, t in self._pinned.items()}
        self._accum = {
            n: np.zeros(p.shape, dtype=TORCH_TO_NUMPY_DTYPE.get(p.dtype, np.float32))
            for n, p in self._params.items()
        }
        self._copier = BatchedD2HCopy(list(self._pinned.values()), device.index or 0)
        self._copy_stream = create_stream()
        self._grads_ready = create_event()
        self._copy_done = create_event()
        self.num_microbatches = 0

    @property
    def names(self) -> list[str]:
        return list(self._params)

    def add_microbatch(self) -> None:
        """Call after ``loss.backward()`` for every micro-batch."""
        grads = [self._params[n].grad for n in self._params]
        if any(g is None for g in grads):
            raise RuntimeError("add_microbatch() called before backward produced all gradients")

        compute = torch_stream_handle(torch.cuda.current_stream())
        checkCudaErrors(driver.cuEventRecord(self._grads_ready, compute))
        checkCudaErrors(driver.cuStreamWaitEvent(self._copy_stream, self._grads_ready, 0))
        self._copier.launch(grads, self._copy_stream)
        checkCudaErrors(driver.cuEventRecord(self._copy_done, self._copy_stream))

        for name, view in self._host_views.items():
            # expect: KVG003
            np.add(self._accum[name], view, out=self._accum[name])
        for p in self._params.values():
            p.grad = None
        self.num_microbatches += 1

    def finalize(self, average: bool = True) -> dict[str, np.ndarray]:
        scale = 1.0 / max(self.num_microbatches, 1) if average else 1.0
        result = {n: acc * scale for n, acc in self._accum.items()}
        for acc in self._accum.values():
            acc.fill(0)
        self.num_microbatches = 0
        return result

    def close(self) -> None:
        checkCudaErrors(driver.cuEventDestroy(self._grads_ready))
        checkCudaErrors(driver.cuEventDestroy(self._copy_done))
        checkCudaErrors(driver.cuStreamDestroy(self._copy_stream))
