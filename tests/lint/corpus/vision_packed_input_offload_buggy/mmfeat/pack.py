"""Pack variable-length multimodal features into one device buffer."""

import torch


def pack_features(features, *, device, dtype):
    total = sum(feature.shape[0] for feature in features)
    packed = torch.empty((total, *features[0].shape[1:]), device=device, dtype=dtype)
    offset = 0
    for feature in features:
        packed[offset : offset + feature.shape[0]].copy_(feature, non_blocking=True)
        offset += feature.shape[0]
    return packed
