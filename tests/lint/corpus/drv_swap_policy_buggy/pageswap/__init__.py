from .policy import SwapPolicy
from .swapper import PageSwapper

__all__ = ["PageSwapper", "SwapPolicy"]
