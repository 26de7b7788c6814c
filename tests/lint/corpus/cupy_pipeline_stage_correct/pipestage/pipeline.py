from __future__ import annotations

from typing import Iterable

import cupy as cp
import numpy as np

from .config import StageConfig
from .staging import PinnedStager
from .streams import DeviceStreams, record_on


class TwoStagePipeline:
    """Stage 0 (a GEMM + GELU) on ``src_device``, stage 1 (a GEMM) on ``dst_device``.

    The devices are not peer-capable in our deployment, so the activation is
    bounced through pinned host memory.
    """

    def __init__(self, cfg: StageConfig, w0: np.ndarray, w1: np.ndarray) -> None:
        self.cfg = cfg
        self._src = DeviceStreams.create(cfg.src_device)
        self._dst = DeviceStreams.create(cfg.dst_device)
        self._stager = PinnedStager(cfg)

        with cp.cuda.Device(cfg.src_device):
            self._w0 = cp.asarray(w0, dtype=cfg.dtype)
            self._act0 = cp.empty(cfg.act_shape, dtype=cfg.dtype)
        with cp.cuda.Device(cfg.dst_device):
            self._w1 = cp.asarray(w1, dtype=cfg.dtype)
            # Persistent receive buffer, re-filled for every micro batch.
            self._recv = cp.empty(cfg.act_shape, dtype=cfg.dtype)
            self._act1 = cp.empty((cfg.micro_batch, w1.shape[1]), dtype=cfg.dtype)
        for dev in (cfg.src_device, cfg.dst_device):
            with cp.cuda.Device(dev):
                cp.cuda.runtime.deviceSynchronize()

    def _stage0(self, x: np.ndarray) -> None:
        with cp.cuda.Device(self.cfg.src_device), self._src.compute:
            x_dev = cp.asarray(x, dtype=self.cfg.dtype)
            cp.matmul(x_dev, self._w0, out=self._act0)
            # tanh-approximation GELU, in place
            a = self._act0
            a *= 0.5 * (1.0 + cp.tanh(0.7978845608 * (a + 0.044715 * a * a * a)))

    def _stage1(self) -> cp.ndarray:
        with cp.cuda.Device(self.cfg.dst_device), self._dst.compute:
            cp.matmul(self._recv, self._w1, out=self._act1)
            return self._act1.copy()

    def run(self, micro_batches: Iterable[np.ndarray]) -> list[cp.ndarray]:
        outputs: list[cp.ndarray] = []
        for i, x in enumerate(micro_batches):
            slot = self._stager.slot_for(i)
            self._stage0(x)

            with cp.cuda.Device(self.cfg.src_device):
                # Order the D2H behind the GEMM/GELU that produced _act0.
                self._src.copy.wait_event(record_on(self._src.compute))
                self._stager.stage_out(self._act0, slot, self._src.copy)
                staged = record_on(self._src.copy)
            # The destination device cannot wait on an event of another device's
            # copy engine reliably in our driver version, so block the host here.
            staged.synchronize()

            with cp.cuda.Device(self.cfg.dst_device):
                # _recv is still being read by the previous micro batch's GEMM.
                self._dst.copy.wait_event(record_on(self._dst.compute))
                self._stager.stage_in(slot, self._recv, self._dst.copy)
                self._dst.compute.wait_event(record_on(self._dst.copy))
                outputs.append(self._stage1())
        return outputs
