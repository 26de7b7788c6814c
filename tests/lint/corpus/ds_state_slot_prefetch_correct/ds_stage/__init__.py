from .optimizer import SlottedOffloadAdam

__all__ = ["SlottedOffloadAdam"]
