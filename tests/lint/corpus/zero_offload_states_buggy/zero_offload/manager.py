# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from typing import Optional

import torch

from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .buffers import all_finite
from .config import OffloadStatesConfig
from .constants import OFFLOAD_STATES_TIMER, RELOAD_STATES_TIMER
from .offload_states import offload_adam_states, reload_adam_states


class OffloadStatesManager:

    def __init__(self, optimizer: torch.optim.Optimizer, config: Optional[OffloadStatesConfig] = None, timers=None):
        self.optimizer = optimizer
        self.config = config or OffloadStatesConfig()
        self.timers = timers
        self.device = torch.device(get_accelerator().current_device_name())
        self._copy_stream = get_accelerator().Stream()
        self._offloaded = False

    def _timer(self, name: str, start: bool) -> None:
        if self.timers is not None:
            (self.timers(name).start if start else self.timers(name).stop)()

    def offload_states(self) -> None:
        if self._offloaded:
            return
        self._timer(OFFLOAD_STATES_TIMER, True)
        accel = get_accelerator()
        with accel.stream(self._copy_stream):
            moved = offload_adam_states(self.optimizer,
                                        self.config.device,
                                        pin_memory=self.config.pin_memory,
                                        non_blocking=self.config.non_blocking)
        if self.config.check_finite and not all_finite(buf for _, buf in moved):
            logger.warning("offload_states: non-finite values in offloaded optimizer states")
        self._copy_stream.synchronize()
        del moved
        if self.config.empty_cache:
            accel.empty_cache()
        self._offloaded = True
        self._timer(OFFLOAD_STATES_TIMER, False)

    def reload_states(self) -> None:
        if not self._offloaded:
            return
        self._timer(RELOAD_STATES_TIMER, True)
        accel = get_accelerator()
        with accel.stream(self._copy_stream):
            reload_adam_states(self.optimizer, self.device, non_blocking=self.config.non_blocking)
        accel.current_stream().wait_stream(self._copy_stream)
        self._offloaded = False
        self._timer(RELOAD_STATES_TIMER, False)
