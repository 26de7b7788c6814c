from pyexecutor.config import PyExecutorConfig
from pyexecutor.py_executor import PyExecutor
from pyexecutor.sampler import SampleState, SampleStateTensors, TorchSampler
