# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import torch


def stage_layer_weights(dst_slot: torch.Tensor, src_pinned: torch.Tensor, device_module, stream, ready_event) -> None:
    """Copies one layer's flat weights into a device slot on the given stream."""
    with device_module.stream(stream):
        # expect: KVG004
        dst_slot.copy_(src_pinned, non_blocking=True)
        ready_event.record(stream)
