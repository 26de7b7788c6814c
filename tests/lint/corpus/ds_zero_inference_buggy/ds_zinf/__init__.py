# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from ds_zinf.config import ZeroInferenceConfig
from ds_zinf.engine import OffloadedInferenceEngine

__all__ = ["OffloadedInferenceEngine", "ZeroInferenceConfig"]
