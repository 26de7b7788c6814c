"""Streams RF frames through the GPU: the upload of frame i+1, the beamforming of frame i and
the download of an earlier image run on three streams at once. Each slot of the ring carries
the events that order its stages."""
from dataclasses import dataclass, field

import numpy as np
from numba import cuda

from .kernels import delay_and_sum, log_compress

RING = 4


@dataclass
class FrameSlot:
    h_rf: np.ndarray
    d_rf: object
    d_image: object
    h_image: np.ndarray
    uploaded: object = field(default_factory=lambda: cuda.event(timing=False))
    rf_consumed: object = field(default_factory=lambda: cuda.event(timing=False))
    image_ready: object = field(default_factory=lambda: cuda.event(timing=False))
    downloaded: object = field(default_factory=lambda: cuda.event(timing=False))


class BeamformPipeline:
    def __init__(self, delays, apod, n_samples, ref=1.0, dynamic_range_db=60.0, threads=256):
        n_pix, n_elem = delays.shape
        self.ref = ref
        self.dynamic_range_db = dynamic_range_db
        self.n_pix = n_pix
        self.threads = threads
        self.h2d = cuda.stream()
        self.compute = cuda.stream()
        self.d2h = cuda.stream()
        self.d_delays = cuda.to_device(delays, stream=self.compute)
        self.d_apod = cuda.to_device(apod, stream=self.compute)
        self.slots = [
            FrameSlot(
                h_rf=cuda.pinned_array((n_elem, n_samples), dtype=np.float32),
                d_rf=cuda.device_array((n_elem, n_samples), dtype=np.float32),
                d_image=cuda.device_array(n_pix, dtype=np.float32),
                h_image=cuda.pinned_array(n_pix, dtype=np.float32),
            )
            for _ in range(RING)
        ]

    def _upload(self, i, frame):
        slot = self.slots[i % RING]
        slot.uploaded.synchronize()           # h_rf is free again
        slot.h_rf[...] = frame
        slot.rf_consumed.wait(self.h2d)       # the last kernel that read d_rf has finished
        slot.d_rf.copy_to_device(slot.h_rf, stream=self.h2d)
        slot.uploaded.record(self.h2d)

    def _beamform(self, i):
        slot = self.slots[i % RING]
        slot.uploaded.wait(self.compute)
        blocks = (self.n_pix + self.threads - 1) // self.threads
        delay_and_sum[blocks, self.threads, self.compute](
            slot.d_rf, self.d_delays, self.d_apod, slot.d_image)
        # the RF buffer may be refilled from here on
        slot.rf_consumed.record(self.compute)
        log_compress[blocks, self.threads, self.compute](
            slot.d_image, self.ref, self.dynamic_range_db)
        # the image is final only after the in-place log compression
        slot.image_ready.record(self.compute)

    def _download(self, i):
        slot = self.slots[i % RING]
        slot.image_ready.wait(self.d2h)
        slot.d_image.copy_to_host(slot.h_image, stream=self.d2h)
        slot.downloaded.record(self.d2h)

    def _collect(self, i):
        slot = self.slots[i % RING]
        slot.downloaded.synchronize()
        return slot.h_image.copy()

    def run(self, frames, on_image):
        n = len(frames)
        if n == 0:
            return
        self._upload(0, frames[0])
        for i in range(n):
            if i + 1 < n:
                self._upload(i + 1, frames[i + 1])
            # start the copy engine on the previous image while this frame is beamformed
            if i >= 1:
                self._download(i - 1)
            self._beamform(i)
            if i >= 2:
                on_image(i - 2, self._collect(i - 2))
        self._download(n - 1)
        for j in range(max(0, n - 2), n):
            on_image(j, self._collect(j))
