# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from .offloader import OffloadStatesConfig, ZeroOptimizerStateOffloader

__all__ = ["OffloadStatesConfig", "ZeroOptimizerStateOffloader"]
