"""Process-wide owner of the offload streams and of the chunk handlers of the model chunks."""

import torch


class PipelineOffloadManager:
    _instance = None

    def __init__(self):
        self._d2h_stream = torch.cuda.Stream()
        self._h2d_stream = torch.cuda.Stream()
        self._chunks = []
        self._cur_forward = None

    @classmethod
    def get_instance(cls):
        if cls._instance is None:
            cls._instance = PipelineOffloadManager()
        return cls._instance

    @property
    def d2h_stream(self):
        return self._d2h_stream

    @property
    def h2d_stream(self):
        return self._h2d_stream

    def push_chunk(self, handler):
        self._chunks.append(handler)
        self._cur_forward = handler

    def cur_forward_chunk(self):
        return self._cur_forward

    def pop_backward_chunk(self):
        return self._chunks.pop()
