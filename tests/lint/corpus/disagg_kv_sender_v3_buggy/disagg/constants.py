# SPDX-License-Identifier: Apache-2.0
"""Runtime API enum values used through ctypes (see driver_types.h)."""

cudaSuccess = 0
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02
cudaHostAllocDefault = 0x00

cudaMemcpySrcAccessOrderStream = 0x1
cudaMemcpySrcAccessOrderDuringApiCall = 0x2
cudaMemcpySrcAccessOrderAny = 0x3

cudaMemLocationTypeDevice = 1
cudaMemLocationTypeHost = 2

HEADER_MAGIC = 0x4B564331  # "KVC1"
DEFAULT_STAGING_BYTES = 256 << 20
