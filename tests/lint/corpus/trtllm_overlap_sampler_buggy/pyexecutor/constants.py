# SPDX-License-Identifier: Apache-2.0
"""Sizes and knobs shared by the sampler and the executor loop."""

import torch

TOKEN_DTYPE = torch.int32
INDEX_DTYPE = torch.int64

# Lower number means higher priority for torch.cuda.Stream.
HOST_COPY_STREAM_PRIORITY = -1

DEFAULT_BEAM_IDX = 0
DEFAULT_STEP_IDX = 0
