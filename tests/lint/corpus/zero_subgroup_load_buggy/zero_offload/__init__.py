# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""CPU optimizer step over sub-groups with write-back of fp16 partitions."""

from .config import OffloadOptimizerConfig
from .offload_engine import SubGroupOffloadEngine

__all__ = ["OffloadOptimizerConfig", "SubGroupOffloadEngine"]
