import queue
from typing import Callable, Iterator, Optional, Tuple

import cupy as cp
import numpy as np

from .receiver import Receiver
from .slots import Slot, make_slots

_PFB = cp.RawKernel(r"""
extern "C" __global__
void pfb_fir(const signed char* raw, const float* weights, float* out,
             int taps, int channels, int spectra)
{
    int ch = threadIdx.x + blockIdx.x * blockDim.x;
    int s = blockIdx.y;
    if (ch >= channels || s >= spectra) return;
    float acc = 0.f;
    for (int t = 0; t < taps; ++t)
        acc += weights[t * channels + ch] * (float)raw[(s + t) * channels + ch];
    out[s * channels + ch] = acc;
}
""", "pfb_fir")


class Channeliser:
    def __init__(self, recv_into: Callable, channels: int = 4096, taps: int = 16,
                 spectra: int = 256, nslots: int = 4):
        self.channels, self.taps, self.spectra = channels, taps, spectra
        samples = (spectra + taps - 1) * channels
        self.compute = cp.cuda.Stream(non_blocking=True)
        with self.compute:
            self.weights = cp.hanning(taps * channels).astype(cp.float32)
        self.free_q: "queue.Queue[Slot]" = queue.Queue()
        self.ready_q: "queue.Queue[Optional[Slot]]" = queue.Queue()
        for slot in make_slots(nslots, samples):
            self.free_q.put(slot)
        self.receiver = Receiver(recv_into, self.free_q, self.ready_q)

    def __iter__(self) -> Iterator[Tuple[int, cp.ndarray]]:
        """Yields (timestamp, pre-FFT spectra) per chunk, on the compute stream."""
        self.receiver.start()
        while True:
            slot = self.ready_q.get()
            if slot is None:
                return
            with self.compute:
                self.compute.wait_event(slot.uploaded)
                out = cp.empty((self.spectra, self.channels), dtype=cp.float32)
                grid = ((self.channels + 255) // 256, self.spectra)
                _PFB(grid, (256,), (slot.d_raw, self.weights, out, np.int32(self.taps),
                                    np.int32(self.channels), np.int32(self.spectra)))
                slot.consumed = self.compute.record()
            self.free_q.put(slot)
            yield slot.timestamp, out
