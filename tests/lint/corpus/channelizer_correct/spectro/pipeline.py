import logging
import queue
from typing import BinaryIO, Dict

import numpy as np
from numba import cuda

from .config import ChannelizerConfig
from .kernels import detect_and_integrate
from .sink import SpectrumSink
from .streams import StreamPair, when_done

log = logging.getLogger(__name__)


class Channelizer:

    def __init__(self, cfg: ChannelizerConfig, out: BinaryIO):
        self.cfg = cfg
        self._streams = StreamPair()
        shape = (cfg.out_rows, cfg.n_channels)
        self._host = [cuda.pinned_array(shape, dtype=np.float32)
                      for _ in range(cfg.in_flight)]
        self._free: "queue.Queue[int]" = queue.Queue()
        for slot in range(cfg.in_flight):
            self._free.put(slot)
        self._device_out: Dict[int, object] = {}
        self._sink = SpectrumSink(self._host, out, self._recycle)
        self._sink.start()

    def _recycle(self, slot: int) -> None:
        self._device_out.pop(slot, None)
        self._free.put(slot)

    def _on_copied(self, payload) -> None:
        self._sink.ready.put(payload)

    def submit(self, seq: int, spectra: np.ndarray) -> None:
        cfg = self.cfg
        slot = self._free.get()
        compute = self._streams.compute
        d_spectra = cuda.to_device(spectra, stream=compute)
        d_out = cuda.device_array((cfg.out_rows, cfg.n_channels), dtype=np.float32,
                                  stream=compute)
        n = cfg.out_rows * cfg.n_channels
        blocks = (n + cfg.threads_per_block - 1) // cfg.threads_per_block
        detect_and_integrate[blocks, cfg.threads_per_block, compute](
            d_spectra, cfg.integrate, d_out)
        self._device_out[slot] = (d_spectra, d_out)

        self._streams.hand_off()
        d_out.copy_to_host(self._host[slot], stream=self._streams.d2h)
        when_done(self._streams.d2h, self._on_copied, (seq, slot))

    def close(self) -> None:
        self._streams.d2h.synchronize()
        self._sink.ready.put(None)
        self._sink.join()
