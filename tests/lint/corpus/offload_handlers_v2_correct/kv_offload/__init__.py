# SPDX-License-Identifier: Apache-2.0
from kv_offload.cpu_gpu import CpuGpuOffloadingHandlers
from kv_offload.worker import OffloadingConnectorWorker, OffloadingWorker
