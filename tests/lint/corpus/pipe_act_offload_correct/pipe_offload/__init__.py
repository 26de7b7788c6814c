# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

from pipe_offload.accelerator import get_accelerator
from pipe_offload.pipe_engine import PipelineEngine
