from .config import OffloadOptimizerConfig
from .pipelined_swapper import PipelinedOptimizerSwapper
from .stage3_step import Stage3OffloadStepper

__all__ = ["OffloadOptimizerConfig", "PipelinedOptimizerSwapper", "Stage3OffloadStepper"]
