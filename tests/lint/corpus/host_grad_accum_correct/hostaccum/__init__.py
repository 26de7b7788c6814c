from .accumulator import HostGradAccumulator

__all__ = ["HostGradAccumulator"]
