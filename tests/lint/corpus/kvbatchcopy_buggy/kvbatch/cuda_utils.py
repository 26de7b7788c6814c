# SPDX-License-Identifier: Apache-2.0
# Third Party
from cuda.bindings import driver


def _cuda_get_error_enum(error) -> str:
    if isinstance(error, driver.CUresult):
        err, name = driver.cuGetErrorName(error)
        return name.decode() if err == driver.CUresult.CUDA_SUCCESS else "<unknown>"
    raise RuntimeError(f"Unknown error type: {error}")


def check_cuda_errors(result):
    if result[0].value:
        raise RuntimeError(
            f"CUDA error code={result[0].value}({_cuda_get_error_enum(result[0])})"
        )
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]
