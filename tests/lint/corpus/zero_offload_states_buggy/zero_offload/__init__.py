# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from .config import OffloadStatesConfig
from .manager import OffloadStatesManager
