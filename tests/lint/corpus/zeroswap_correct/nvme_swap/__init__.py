# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from .config import OptimizerSwapConfig
from .optimizer_swapper import OptimizerStateSwapper

__all__ = ["OptimizerSwapConfig", "OptimizerStateSwapper"]
