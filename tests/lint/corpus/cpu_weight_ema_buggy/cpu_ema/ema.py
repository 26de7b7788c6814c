"""Exponential moving average of model weights, kept in host memory."""
import logging
from typing import Dict, Optional

import numpy as np
import torch
from cuda.bindings import driver

from .config import EMAConfig
from .driver_copy import ACCESS_ORDER_ANY, CopyPlan, batch_copy_d2h, check

logger = logging.getLogger(__name__)


class HostEMA:
    """Snapshots fp32 weights into a pinned buffer on a side stream and folds them into a numpy EMA.

    The fold of a snapshot is deferred to the next call so the host thread never blocks on the copy.
    """

    def __init__(self, model: torch.nn.Module, config: EMAConfig):
        self.config = config
        self.num_updates = 0
        self._device_ordinal = torch.cuda.current_device()
        params = {name: p for name, p in model.named_parameters() if p.requires_grad}
        assert all(p.dtype == torch.float32 and p.is_contiguous() for p in params.values())
        total = sum(p.numel() for p in params.values())
        self._snapshot = torch.empty(total, dtype=torch.float32, pin_memory=True)
        self._offsets: Dict[str, slice] = {}
        self._plan = CopyPlan()
        offset = 0
        for name, p in params.items():
            self._offsets[name] = slice(offset, offset + p.numel())
            self._plan.add(self._snapshot.data_ptr() + offset * 4, p.data_ptr(), p.numel() * 4)
            offset += p.numel()
        self._ema: Optional[np.ndarray] = None
        self._stream = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))
        flags = driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value
        self._weights_ready = check(driver.cuEventCreate(flags))
        self._snapshot_done = check(driver.cuEventCreate(flags))
        self._snapshot_pending = False

    def on_optimizer_step(self, step: int) -> None:
        if self._snapshot_pending:
            self._fold_snapshot()
        if step < self.config.warmup_steps or step % self.config.update_every != 0:
            return
        compute = driver.CUstream(torch.cuda.current_stream().cuda_stream)
        check(driver.cuEventRecord(self._weights_ready, compute))
        check(driver.cuStreamWaitEvent(self._stream, self._weights_ready, 0))
        batch_copy_d2h(
            self._plan,
            self._stream,
            device_ordinal=self._device_ordinal,
            src_access_order=ACCESS_ORDER_ANY,
        )
        check(driver.cuEventRecord(self._snapshot_done, self._stream))
        # the next optimizer step must not overwrite weights the snapshot is still reading
        check(driver.cuStreamWaitEvent(compute, self._snapshot_done, 0))
        self._snapshot_pending = True

    def _fold_snapshot(self) -> None:
        check(driver.cuEventSynchronize(self._snapshot_done))
        snapshot = self._snapshot.numpy()
        if self._ema is None:
            self._ema = snapshot.copy()
        else:
            decay = self.config.decay_at(self.num_updates)
            np.multiply(self._ema, decay, out=self._ema)
            self._ema += (1.0 - decay) * snapshot
        self.num_updates += 1
        self._snapshot_pending = False

    def state_dict(self) -> Dict[str, np.ndarray]:
        if self._snapshot_pending:
            self._fold_snapshot()
        if self._ema is None:
            return {}
        return {name: self._ema[sl].copy() for name, sl in self._offsets.items()}
