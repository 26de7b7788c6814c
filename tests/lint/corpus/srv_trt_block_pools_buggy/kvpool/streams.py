"""Copy streams shared by the block pools."""

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class TransferStreams:
    offload: torch.cuda.Stream
    onboard: torch.cuda.Stream


def make_transfer_streams(device):
    return TransferStreams(
        offload=torch.cuda.Stream(device=device),
        onboard=torch.cuda.Stream(device=device),
    )
