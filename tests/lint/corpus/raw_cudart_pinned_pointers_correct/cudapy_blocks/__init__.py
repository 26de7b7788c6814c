from .block_mover import BlockMover

__all__ = ["BlockMover"]
