# SPDX-License-Identifier: Apache-2.0
from v1_runner.gpu_model_runner import GPUModelRunner
from v1_runner.worker import GPUWorker
