from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from . import preprocess
from .decoder import MockNvDecoder, Packet
from .thumbs import ThumbnailSink


@dataclass
class PipelineConfig:
    height: int = 1080
    width: int = 1920
    model_size: int = 640
    thumb_width: int = 320
    frame_pool: int = 4
    thumb_depth: int = 8
    overlay_hw: tuple[int, int] = (64, 256)
    device: str = "cuda:0"


class VideoPipeline:
    def __init__(self, cfg: PipelineConfig, detector: torch.nn.Module) -> None:
        self.cfg = cfg
        dev = torch.device(cfg.device)
        self.compute = torch.cuda.Stream(dev)
        self._upload = torch.cuda.Stream(dev)
        self.detector = detector.to(dev).eval()
        self.decoder = MockNvDecoder(cfg.height, cfg.width, dev)
        self._frames = [
            torch.empty((3, cfg.height, cfg.width), dtype=torch.uint8, device=dev) for _ in range(cfg.frame_pool)
        ]
        self._fi = 0
        self._overlay = torch.zeros((4, *cfg.overlay_hw), dtype=torch.uint8, device=dev)
        th = max(1, round(cfg.height * cfg.thumb_width / cfg.width))
        self.thumbs = ThumbnailSink((th, cfg.thumb_width, 3), cfg.thumb_depth, dev)

    def set_overlay(self, rgba: np.ndarray) -> None:
        """Swap the watermark at runtime (operator UI); ``rgba`` is (h, w, 4) uint8."""
        staged = torch.from_numpy(np.ascontiguousarray(rgba.transpose(2, 0, 1))).pin_memory()
        with torch.cuda.stream(self._upload):
            # expect: KVG004
            self._overlay.copy_(staged, non_blocking=True)
        self.compute.wait_stream(self._upload)

    @torch.inference_mode()
    def process(self, packet: Packet) -> torch.Tensor:
        frame = self._frames[self._fi]
        self._fi = (self._fi + 1) % len(self._frames)
        # The pool slot may still be read by the previous round's kernels.
        self.decoder.stream.wait_stream(self.compute)
        decoded = self.decoder.decode_into(packet, frame)
        self.compute.wait_event(decoded)
        with torch.cuda.stream(self.compute):
            preprocess.stamp_overlay(frame, self._overlay)
            thumb = preprocess.thumbnail(frame, self.cfg.thumb_width)
            x = preprocess.normalize_(preprocess.letterbox(frame, self.cfg.model_size))
            dets = self.detector(x)
        self.thumbs.enqueue(packet.pts, thumb, ready=decoded)
        return dets
