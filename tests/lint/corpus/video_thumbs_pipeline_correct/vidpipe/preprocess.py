from __future__ import annotations

import torch
import torch.nn.functional as F

_MEAN = (0.485, 0.456, 0.406)
_STD = (0.229, 0.224, 0.225)


def letterbox(frame: torch.Tensor, size: int) -> torch.Tensor:
    """(3, H, W) uint8 -> (1, 3, size, size) float, aspect preserved, zero padded."""
    _, h, w = frame.shape
    scale = size / max(h, w)
    nh, nw = round(h * scale), round(w * scale)
    x = F.interpolate(frame.unsqueeze(0).float(), size=(nh, nw), mode="bilinear", align_corners=False)
    top, left = (size - nh) // 2, (size - nw) // 2
    return F.pad(x, (left, size - nw - left, top, size - nh - top))


def normalize_(x: torch.Tensor) -> torch.Tensor:
    mean = x.new_tensor(_MEAN).view(1, 3, 1, 1) * 255.0
    std = x.new_tensor(_STD).view(1, 3, 1, 1) * 255.0
    return x.sub_(mean).div_(std)


def stamp_overlay(frame: torch.Tensor, overlay: torch.Tensor) -> torch.Tensor:
    """Alpha-blend an RGBA watermark into the top-left corner of a (3, H, W) uint8 frame."""
    oh, ow = overlay.shape[1:]
    alpha = overlay[3:4].float() / 255.0
    region = frame[:, :oh, :ow].float()
    frame[:, :oh, :ow] = (region * (1 - alpha) + overlay[:3].float() * alpha).to(frame.dtype)
    return frame


def thumbnail(frame: torch.Tensor, width: int) -> torch.Tensor:
    _, h, w = frame.shape
    th = max(1, round(h * width / w))
    x = F.interpolate(frame.unsqueeze(0).float(), size=(th, width), mode="area")
    return x.squeeze(0).clamp_(0, 255).to(torch.uint8).permute(1, 2, 0).contiguous()
