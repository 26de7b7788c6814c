# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass, field
from typing import Any, Optional

import torch


@dataclass
class OptimizerSwapOp:
    """One parameter's optimizer state on its way between NVMe, pinned buffers and the device."""

    aio_handle: Any
    param_id: int
    allocated_buffers: list
    state_buffers: list
    swap_paths: list
    num_ops: int = 0
    copy_done: Optional[torch.cuda.Event] = None
    wait_required: bool = field(default=True)

    def wait(self):
        assert self.wait_required
        assert self.aio_handle.wait() == self.num_ops
        self.wait_required = False
