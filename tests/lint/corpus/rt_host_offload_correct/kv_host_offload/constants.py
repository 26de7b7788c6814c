# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
# cudaMemcpySrcAccessOrder used for device -> host offload batches.
OFFLOAD_SRC_ACCESS_ORDER = 1
MAX_BLOCKS_PER_BATCH = 256
ONBOARD_QUEUE_DEPTH = 128
