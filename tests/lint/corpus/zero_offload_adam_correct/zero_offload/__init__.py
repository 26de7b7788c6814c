# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

from zero_offload.config import DeepSpeedZeroOffloadOptimizerConfig
from zero_offload.stage2_offload import DeepSpeedZeroOffloadOptimizer
