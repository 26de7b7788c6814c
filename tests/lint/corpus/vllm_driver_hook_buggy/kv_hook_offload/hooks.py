# SPDX-License-Identifier: Apache-2.0
import logging
from typing import Callable

import torch
from cuda.bindings import driver

logger = logging.getLogger(__name__)

StepHook = Callable[[int, driver.CUstream], None]


class StepHookRegistry:
    """Lets KV connectors run code right after the model runner enqueues a step."""

    def __init__(self):
        self._hooks: list[StepHook] = []

    def register(self, hook: StepHook) -> None:
        self._hooks.append(hook)

    def after_forward(self, step: int) -> None:
        stream = driver.CUstream(torch.cuda.current_stream().cuda_stream)
        for hook in self._hooks:
            try:
                hook(step, stream)
            except Exception:
                logger.exception("step hook %r failed at step %d", hook, step)
