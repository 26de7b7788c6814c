# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from .config import OffloadOptimizerConfig
from .offload_optimizer import NumbaOffloadOptimizer

__all__ = ["OffloadOptimizerConfig", "NumbaOffloadOptimizer"]
