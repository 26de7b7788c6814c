# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import math

import cupy
import numpy as np
import torch
from deepspeed.utils import logger
from mpi4py import MPI

from .constants import GATHER_ROOT, ONEBIT_CUDA_AWARE, ONEBIT_CUDA_AWARE_DEFAULT
from .cupy_backend import CupyBackend
from .host_staging import HostStaging


class MpiBackend(object):

    def __init__(self, config: dict):
        self.comm = MPI.COMM_WORLD
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.cuda_aware = config.get(ONEBIT_CUDA_AWARE, ONEBIT_CUDA_AWARE_DEFAULT)
        self.compression_backend = CupyBackend()
        self.staging = None if self.cuda_aware else HostStaging()
        logger.info(f"1-bit MPI backend: rank {self.rank}/{self.size}, cuda_aware={self.cuda_aware}")

    def gather_cuda(self, sign_list_packed, worker_scale):
        recv_sign = cupy.zeros([self.size, sign_list_packed[self.rank].size], dtype=sign_list_packed[0].dtype)
        recv_scale = cupy.zeros([self.size, 1], dtype=worker_scale.dtype)
        self.comm.Allgather(sign_list_packed[self.rank], recv_sign)
        self.comm.Allgather(worker_scale, recv_scale)
        return recv_sign, recv_scale

    def gather_host(self, sign_list_packed, worker_scale):
        host_sign = self.staging.stage_sign(sign_list_packed[self.rank])
        host_scale = self.staging.stage_scale(worker_scale)
        self.staging.wait()
        recv_sign = np.zeros([self.size, host_sign.size], dtype=host_sign.dtype)
        recv_scale = np.zeros([self.size, 1], dtype=host_scale.dtype)
        self.comm.Allgather(host_sign, recv_sign)
        self.comm.Allgather(host_scale, recv_scale)
        return cupy.asarray(recv_sign), cupy.asarray(recv_scale)

    def compressed_allreduce(self, buffer_m: torch.Tensor, worker_error: torch.Tensor, local_rank: int):
        original_shape = buffer_m.size()
        if len(original_shape) > 1:
            buffer_m = torch.flatten(buffer_m)
        buffer_m.add_(worker_error)
        worker_scale = torch.linalg.norm(buffer_m) / math.sqrt(buffer_m.numel())
        worker_error.set_(buffer_m - worker_scale * buffer_m.sign().add_(1).bool().float().add_(-0.5).mul_(2.0))

        sign_list_packed = self.compression_backend.compress_by_chunk(
            self.compression_backend.torch2cupy(buffer_m.sign_().add_(1).bool()), self.size)
        cupy_worker_scale = self.compression_backend.torch2cupy(worker_scale.reshape(1))

        if self.cuda_aware:
            cupy.cuda.get_current_stream().synchronize()
            recv_sign, recv_scale = self.gather_cuda(sign_list_packed, cupy_worker_scale)
        else:
            recv_sign, recv_scale = self.gather_host(sign_list_packed, cupy_worker_scale)

        unpacked = cupy.unpackbits(recv_sign.flatten()).reshape(self.size, -1).astype(cupy.float32)
        signs = self.compression_backend.cupy2torch(unpacked).float().add_(-0.5).mul_(2.0)
        scales = self.compression_backend.cupy2torch(recv_scale.astype(cupy.float32)).to(buffer_m.device)
        averaged = (signs * scales).sum(0) / self.size
        buffer_m.copy_(averaged[:buffer_m.numel()])
        return buffer_m.view(original_shape)
