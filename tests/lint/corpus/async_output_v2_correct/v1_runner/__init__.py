from v1_runner.executor import UniProcExecutor
from v1_runner.model_runner import GPUModelRunner

__all__ = ["GPUModelRunner", "UniProcExecutor"]
