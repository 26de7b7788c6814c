"""Upload -> (luma || chroma) -> download, over a ring of frame slots."""
import subprocess
from typing import List

import cupy
import numpy

from . import kernels
from .feeder import EncoderFeeder
from .slots import FrameSlot

_BLOCK = (16, 16)


class Nv12Converter:
    def __init__(self, width: int, height: int, fps: int, out_path: str, ring: int = 3):
        if width % 2 or height % 2:
            raise ValueError("NV12 needs even dimensions")
        self.width, self.height = width, height
        self.slots: List[FrameSlot] = [FrameSlot(width, height, index=i) for i in range(ring)]
        self.frame_no = 0
        self.upload = cupy.cuda.Stream(non_blocking=True)
        self.planes = {
            "luma": cupy.cuda.Stream(non_blocking=True),
            "chroma": cupy.cuda.Stream(non_blocking=True),
        }
        self.download = cupy.cuda.Stream(non_blocking=True)
        self._encoder = subprocess.Popen(
            ["ffmpeg", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "nv12",
             "-s", f"{width}x{height}", "-r", str(fps), "-i", "-", "-c:v", "libx264", out_path],
            stdin=subprocess.PIPE)
        self.feeder = EncoderFeeder(self._encoder.stdin)
        self.feeder.start()

    def push(self, frame: numpy.ndarray) -> None:
        """Convert one HxWx3 uint8 RGB frame and queue it for the encoder."""
        slot = self.slots[self.frame_no % len(self.slots)]
        self.frame_no += 1
        slot.released.wait()             # the feeder has written this slot's last frame
        slot.released.clear()
        w, h = self.width, self.height

        # the slot's RGB may still be read by the plane kernels of its previous frame
        for plane in self.planes.values():
            self.upload.wait_event(plane.record())
        slot.rgb.set(frame, stream=self.upload)
        uploaded = self.upload.record()

        grid_y = ((w + _BLOCK[0] - 1) // _BLOCK[0], (h + _BLOCK[1] - 1) // _BLOCK[1])
        grid_uv = ((w // 2 + _BLOCK[0] - 1) // _BLOCK[0], (h // 2 + _BLOCK[1] - 1) // _BLOCK[1])
        luma, chroma = self.planes["luma"], self.planes["chroma"]
        luma.wait_event(uploaded)
        with luma:
            kernels.rgb_to_y(grid_y, _BLOCK, (slot.rgb, slot.y, numpy.int32(w), numpy.int32(h)))
        chroma.wait_event(uploaded)
        with chroma:
            kernels.rgb_to_uv(grid_uv, _BLOCK, (slot.rgb, slot.uv, numpy.int32(w), numpy.int32(h)))

        # luma is the long pole (4x the pixels of chroma): once it is done, so is the frame
        self.download.wait_event(luma.record())
        # expect: KVG001
        slot.nv12.get(stream=self.download, out=slot.host, blocking=False)
        slot.ready = self.download.record()
        self.feeder.frames.put(slot)

    def close(self) -> int:
        self.feeder.frames.put(None)
        self.feeder.join()
        self._encoder.stdin.close()
        return self._encoder.wait()
