# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
import torch

MAX_NUM_SEQUENCES = 512
TOKEN_DTYPE = torch.int32
LOGPROB_DTYPE = torch.float32
# Depth of the hand-off between the forward loop and the response thread.
MAX_INFLIGHT_SAMPLE_STATES = 2
END_ID_UNSET = -1
