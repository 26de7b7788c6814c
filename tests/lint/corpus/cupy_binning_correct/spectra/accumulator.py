import logging
from typing import Optional

import cupy
import numpy as np

from .memory import StreamSet, pinned_empty
from .settings import (BIN_DTYPE, CHUNK_EVENTS, COUNT_DTYPE, DOWNLOAD_EVERY,
                       NUM_BINS, RING_DEPTH)
from .sink import HistogramSink

logger = logging.getLogger(__name__)


class HistogramAccumulator:

    def __init__(self, sink: HistogramSink, device_id: int = 0):
        self._sink = sink
        self._streams = StreamSet(device_id)
        self._d_inputs = [
            cupy.empty(CHUNK_EVENTS, dtype=BIN_DTYPE)
            for _ in range(RING_DEPTH)
        ]
        self._h_inputs = [
            pinned_empty(CHUNK_EVENTS, BIN_DTYPE) for _ in range(RING_DEPTH)
        ]
        self._uploaded: list[Optional[cupy.cuda.Event]] = [None] * RING_DEPTH
        self._consumed: list[Optional[cupy.cuda.Event]] = [None] * RING_DEPTH
        with self._streams.compute:
            self._d_hist = cupy.zeros(NUM_BINS, dtype=COUNT_DTYPE)
        self._h_hist = pinned_empty(NUM_BINS, COUNT_DTYPE)
        self._downloaded: Optional[cupy.cuda.Event] = None
        self._seq = 0

    def submit(self, events: np.ndarray) -> None:
        st = self._streams
        slot = self._seq % RING_DEPTH
        if self._uploaded[slot] is not None:
            self._uploaded[slot].synchronize()
        self._h_inputs[slot][:] = events
        if self._consumed[slot] is not None:
            st.upload.wait_event(self._consumed[slot])
        self._d_inputs[slot].set(self._h_inputs[slot], stream=st.upload)
        uploaded = st.upload.record()
        self._uploaded[slot] = uploaded

        st.compute.wait_event(uploaded)
        if self._downloaded is not None:
            st.compute.wait_event(self._downloaded)
        with st.compute:
            counts = cupy.bincount(self._d_inputs[slot], minlength=NUM_BINS)
            self._d_hist += counts[:NUM_BINS].astype(COUNT_DTYPE)
            self._consumed[slot] = st.compute.record()
        self._seq += 1
        if self._seq % DOWNLOAD_EVERY == 0:
            self._download()

    def _download(self) -> None:
        st = self._streams
        st.download.wait_event(st.compute.record())
        self._d_hist.get(stream=st.download, out=self._h_hist, blocking=False)
        self._downloaded = st.download.record()
        st.download.launch_host_func(self._on_landed, self._seq)

    def _on_landed(self, seq: int) -> None:
        self._sink.put(seq, self._h_hist.copy())

    def flush(self) -> np.ndarray:
        self._download()
        self._streams.download.synchronize()
        totals = self._h_hist.astype(np.int64)
        logger.info("flushed %d chunks, %d events", self._seq,
                    int(totals.sum()))
        return totals
