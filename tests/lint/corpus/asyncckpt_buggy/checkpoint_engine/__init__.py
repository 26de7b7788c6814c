# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from .decoupled_checkpoint_engine import DecoupledCheckpointEngine

__all__ = ["DecoupledCheckpointEngine"]
