from .callback import EMAAsyncCheckpoint

__all__ = ["EMAAsyncCheckpoint"]
