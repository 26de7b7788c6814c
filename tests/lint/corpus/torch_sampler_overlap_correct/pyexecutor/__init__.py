from .llm_request import LlmRequest, LlmRequestState
from .py_executor import PyExecutor
from .sampler import SampleState, SampleStateTensors, TorchSampler
