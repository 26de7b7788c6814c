from .ema import EmaSnapshotter

__all__ = ["EmaSnapshotter"]
