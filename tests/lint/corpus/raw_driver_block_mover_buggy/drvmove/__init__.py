from .config import DEFAULTS, load_config
from .mover import BlockMover, DriverError

__all__ = ["BlockMover", "DriverError", "DEFAULTS", "load_config"]
