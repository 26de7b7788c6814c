"""Process-wide offload streams, created once and shared by every handler."""

import torch


class OffloadStreams:
    _instance = None

    def __init__(self):
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()

    @classmethod
    def get(cls):
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance
