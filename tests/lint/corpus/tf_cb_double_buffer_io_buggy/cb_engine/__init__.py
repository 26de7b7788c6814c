from .io_buffers import PagedIOBuffers, StagedOutputs
from .output_worker import OutputWorker
from .processor import ContinuousBatchProcessor

__all__ = ["PagedIOBuffers", "StagedOutputs", "OutputWorker", "ContinuousBatchProcessor"]
