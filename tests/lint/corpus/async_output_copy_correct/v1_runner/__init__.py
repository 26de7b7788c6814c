from v1_runner.async_output import AsyncGPUModelRunnerOutput
from v1_runner.core import EngineCore
from v1_runner.gpu_model_runner import GPUModelRunner

__all__ = ["AsyncGPUModelRunnerOutput", "EngineCore", "GPUModelRunner"]
