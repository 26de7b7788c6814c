# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

CHECKPOINT_WRITER_THREADS = 2
PINNED_STAGING_BUFFERS = 2
SHARD_FILE_TEMPLATE = "{tag}/zero_pp_rank_{rank}_mp_rank_00_model_states_{idx:03d}.pt"
