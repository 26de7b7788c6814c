# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import cupy
from torch.utils.dlpack import from_dlpack, to_dlpack


class CupyBackend(object):

    def torch2cupy(self, tensor):
        return cupy.from_dlpack(to_dlpack(tensor))

    def cupy2torch(self, cupy_tensor):
        return from_dlpack(cupy_tensor.toDlpack())

    def compress_by_chunk(self, cupy_bool_tensor, num_chunks):
        packed_sign = cupy.packbits(cupy_bool_tensor)
        return cupy.split(packed_sign, num_chunks)
