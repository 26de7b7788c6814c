# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from dataclasses import dataclass

from .constants import CHECKPOINT_QUEUE_DEPTH


@dataclass
class DecoupledCheckpointConfig:
    queue_depth: int = CHECKPOINT_QUEUE_DEPTH
    pin_memory: bool = True
    fsync: bool = True
