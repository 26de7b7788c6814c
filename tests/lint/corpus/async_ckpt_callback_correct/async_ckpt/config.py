# coding=utf-8
# Copyright 2025 The HuggingFace Team. All rights reserved.
# Licensed under the Apache License, Version 2.0
from dataclasses import dataclass


@dataclass
class AsyncCheckpointConfig:
    """
    Args:
        output_dir (`str`):
            Directory where `pytorch_model-step{N}.bin` files are written.
        num_snapshot_buffers (`int`, defaults to 2):
            Number of pinned host copies of the state dict, so a new snapshot can start while the previous one
            is being written.
        save_on_train_end (`bool`, defaults to `True`):
            Take a final snapshot when training ends.
    """

    output_dir: str
    num_snapshot_buffers: int = 2
    save_on_train_end: bool = True
    weights_name_template: str = "pytorch_model-step{step}.bin"
