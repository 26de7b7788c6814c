# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, Optional

import torch

from .optimizer_config import OFFLOAD_CKPT_WORKER_PREFIX, OffloadConfig
from .state_offloader import OptimizerStateOffloader

logger = logging.getLogger(__name__)


def _write_offloaded_state(state: Dict[str, object], path: str) -> str:
    tmp_path = path + ".tmp"
    torch.save(state, tmp_path)
    os.replace(tmp_path, path)
    return path


class OffloadedStateSaver:
    """Writes the CPU copy of the optimizer state without blocking training."""

    def __init__(self, config: OffloadConfig):
        self._executor = ThreadPoolExecutor(
            max_workers=config.num_ckpt_workers, thread_name_prefix=OFFLOAD_CKPT_WORKER_PREFIX
        )
        self._pending: Optional[Future] = None

    def wait(self) -> None:
        if self._pending is not None:
            self._pending.result()
            self._pending = None

    def schedule(self, offloader: OptimizerStateOffloader, ckpt_dir: str, iteration: int) -> Future:
        self.wait()
        path = os.path.join(ckpt_dir, f"iter_{iteration:07d}", "offloaded_optim.pt")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        offloader.wait_for_d2h()
        state = offloader.cpu_state_dict()
        self._pending = self._executor.submit(_write_offloaded_state, state, path)
        logger.info("Scheduled offloaded optimizer state save to %s", path)
        return self._pending
