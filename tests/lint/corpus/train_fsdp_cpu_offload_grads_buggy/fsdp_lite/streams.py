"""The side streams a fully sharded module uses, created once per process."""

from dataclasses import dataclass

import torch


@dataclass
class FSDPStreams:
    unshard: torch.cuda.Stream
    post_backward: torch.cuda.Stream


_STREAMS = None


def get_streams():
    global _STREAMS
    if _STREAMS is None:
        _STREAMS = FSDPStreams(unshard=torch.cuda.Stream(), post_backward=torch.cuda.Stream())
    return _STREAMS
