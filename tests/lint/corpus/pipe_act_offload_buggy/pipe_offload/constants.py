# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

NUM_ACTIVATION_BUFFERS = 2
ACTIVATION_SWAP_TIMER = "activation_swap"
PIPE_SEND_OUTPUT_TIMER = "pipe_send_output"
