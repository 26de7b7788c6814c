"""GPU X-engine of a small radio interferometer: unpacks channelised voltages, accumulates
the visibility matrix of every channel, and dumps it every ``n_int`` spectra.

All kernels run on ``self.compute`` (passed as ``stream=``); the dump is a device-to-host
copy on ``self.d2h`` into one of two pinned slots, so the next integration can start while
the previous one is still being copied out."""

import queue
import time

import cupy
import numpy as np

from xcorr import kernels
from xcorr.memory import install_pools, pinned_empty
from xcorr.writer import Dump, DumpWriter


class XEngine:
    def __init__(self, nant: int, nchan: int, n_int: int, out_path: str):
        install_pools()
        self.nant, self.nchan, self.n_int = nant, nchan, n_int
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.d2h = cupy.cuda.Stream(non_blocking=True)
        nvis = nchan * nant * nant
        with self.compute:
            self.raw = cupy.empty(nchan * nant, dtype=cupy.uint8)
            self.volt = cupy.empty(nchan * nant, dtype=cupy.complex64)
            self.vis = cupy.zeros(nvis, dtype=cupy.complex64)
        self.slots = [pinned_empty((nvis,), np.complex64) for _ in range(2)]
        self.free_slots: "queue.Queue[int]" = queue.Queue()
        for i in range(len(self.slots)):
            self.free_slots.put(i)
        self.writer = DumpWriter(out_path, self.free_slots)
        self.spectra = 0
        self.dumps = 0
        self.t_start = time.time()

    def _launch_grid(self, n: int):
        threads = 256
        return ((n + threads - 1) // threads,), (threads,)

    def integrate(self, packet: np.ndarray) -> None:
        """Accumulate one spectrum (``nchan * nant`` packed int4 samples)."""
        n = self.nchan * self.nant
        self.raw.set(packet, stream=self.compute)
        grid, block = self._launch_grid(n)
        kernels.unpack_ci4(grid, block, (self.raw, self.volt, np.int64(n)), stream=self.compute)
        kernels.xmac(self.volt, np.int32(self.nant), np.int32(self.nchan), self.vis, stream=self.compute)
        self.spectra += 1
        if self.spectra % self.n_int == 0:
            self._dump()

    def _dump(self) -> None:
        slot = self.free_slots.get()
        host = self.slots[slot]
        # the copy engine may only read the accumulator once the integration has finished
        integrated = cupy.cuda.get_current_stream().record()
        self.d2h.wait_event(integrated)
        # expect: KVG001
        self.vis.get(stream=self.d2h, out=host, blocking=False)
        copied = self.d2h.record()
        # the next integration overwrites the accumulator: not before the copy has read it
        self.compute.wait_event(copied)
        with self.compute:
            self.vis.fill(0)
        self.writer.submit(Dump(self.dumps, slot, host, copied, self.t_start))
        self.dumps += 1
        self.t_start = time.time()

    def close(self) -> None:
        self.compute.synchronize()
        self.d2h.synchronize()
        self.writer.close()


def main(nant: int = 64, nchan: int = 256, n_int: int = 1000, spectra: int = 10000,
         out_path: str = "vis.bin") -> None:
    eng = XEngine(nant, nchan, n_int, out_path)
    rng = np.random.default_rng(0)
    for _ in range(spectra):
        eng.integrate(rng.integers(0, 256, nchan * nant, dtype=np.uint8))
    eng.close()


if __name__ == "__main__":
    main()
