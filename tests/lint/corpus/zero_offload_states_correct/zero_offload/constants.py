# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Keys and defaults for offloading optimizer states."""

OFFLOAD_DEVICE_CPU = "cpu"
ADAM_STATE_KEYS = ("exp_avg", "exp_avg_sq")
OFFLOAD_BUFFER_SUFFIX = "_offload_buffer"
OFFLOAD_STATES_TIMER = "offload_states"
RELOAD_STATES_TIMER = "reload_states"
