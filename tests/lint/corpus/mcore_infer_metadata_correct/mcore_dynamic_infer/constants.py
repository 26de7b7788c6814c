# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from cuda.bindings import driver

# Per-request fields mirrored to the host after every step, in copy order.
METADATA_FIELDS = ("last_token_ids", "sequence_lengths", "finished_flags")

# Attributes applied to every copy of a metadata pull.
METADATA_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
METADATA_COPY_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
