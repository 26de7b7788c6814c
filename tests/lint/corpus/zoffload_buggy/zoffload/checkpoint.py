# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import os

import torch

from deepspeed.utils import logger

from . import streams
from .constants import ADAM_STATE_KEYS
from .states import make_offload_key


def collect_offloaded(optimizer):
    payload = {}
    for group_id, group in enumerate(optimizer.param_groups):
        for param_id, param in enumerate(group["params"]):
            state = optimizer.state.get(param, {})
            bufs = {k: state[make_offload_key(k)] for k in ADAM_STATE_KEYS if make_offload_key(k) in state}
            if bufs:
                payload[(group_id, param_id)] = bufs
    return payload


def snapshot_offloaded_states(optimizer, path):
    if streams.offload_event is None:
        logger.warning(f"no offloaded optimizer states to snapshot at {path}")
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    payload = collect_offloaded(optimizer)
    # expect: KVG003
    torch.save(payload, path)
    logger.info(f"saved {len(payload)} offloaded optimizer states to {path}")
