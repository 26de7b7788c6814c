from v1.async_output import AsyncGPUModelRunnerOutput
from v1.outputs import LogprobsLists, LogprobsTensors, ModelRunnerOutput, SamplerOutput
