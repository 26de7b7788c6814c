from .async_output import AsyncGPUModelRunnerOutput
from .executor import UniProcExecutor
from .model_runner import GPUModelRunner

__all__ = ["AsyncGPUModelRunnerOutput", "GPUModelRunner", "UniProcExecutor"]
