# Copyright 2024 The HuggingFace Team. All rights reserved.
OFFLOAD_INDEX_NAME = "index.json"
OFFLOAD_WEIGHT_SUFFIX = ".safetensors"
OFFLOAD_WRITER_THREAD = "accelerate-offload-writer"
SAFETENSORS_METADATA = {"format": "pt"}

CUDA_MEMCPY_DEVICE_TO_HOST = 2
SCORES_SRC_ACCESS_ORDER = 2
