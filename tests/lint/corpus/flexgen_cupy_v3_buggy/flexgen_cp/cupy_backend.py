"""Thin device layer: streams, events and copies between pinned host memory and the GPU."""
import cupy as cp
import cupyx
import numpy as np


class CupyDevice:

    def __init__(self, device_id: int = 0):
        self.dev = cp.cuda.Device(device_id)
        with self.dev:
            self.compute_stream = cp.cuda.Stream(non_blocking=True)
            self.load_stream = cp.cuda.Stream(non_blocking=True)
            self.store_stream = cp.cuda.Stream(non_blocking=True)

    def allocate(self, shape, dtype) -> cp.ndarray:
        with self.dev:
            return cp.empty(shape, dtype=dtype)

    @staticmethod
    def new_event() -> cp.cuda.Event:
        return cp.cuda.Event(block=False, disable_timing=True)


def pinned_empty(shape, dtype) -> np.ndarray:
    return cupyx.empty_pinned(shape, dtype=dtype)


def copy_host_to_device(dst: cp.ndarray, src: np.ndarray, stream: cp.cuda.Stream) -> None:
    # expect: KVG004
    dst.set(src, stream=stream)


def copy_device_to_host(dst: np.ndarray, src: cp.ndarray, stream: cp.cuda.Stream) -> None:
    src.get(stream=stream, out=dst, blocking=False)
