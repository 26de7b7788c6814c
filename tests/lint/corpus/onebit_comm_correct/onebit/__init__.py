# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from .mpi_backend import MpiBackend

__all__ = ["MpiBackend"]
