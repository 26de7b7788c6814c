# SPDX-License-Identifier: Apache-2.0
PREFETCH_DEPTH = 2
SWAP_IN_THREAD_PREFIX = "ds-param-swap-in"
SWAP_BUFFER_ALIGNMENT = 512
PARAM_SWAP_TIMER = "param_swap_in"
