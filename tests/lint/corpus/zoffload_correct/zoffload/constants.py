# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
OFFLOAD_BUFFER_SUFFIX = "_offload_buffer"
ADAM_STATE_KEYS = ("exp_avg", "exp_avg_sq")
SNAPSHOT_FILE_TEMPLATE = "zero_pp_rank_{rank}_step{step}_offloaded_optim_states.pt"
OFFLOAD_STATES_TIMER = "offload_optimizer_states"
RELOAD_STATES_TIMER = "reload_optimizer_states"
