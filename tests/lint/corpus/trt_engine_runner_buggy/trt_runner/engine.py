from __future__ import annotations

import logging
from pathlib import Path
from typing import Dict, Mapping

import numpy as np
import tensorrt as trt
from cuda import cudart

from .cuda_utils import HostDeviceMem, check

logger = logging.getLogger(__name__)
TRT_LOGGER = trt.Logger(trt.Logger.WARNING)

_H2D = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
_D2H = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost


class TrtRunner:
    """Runs a static-shape TensorRT engine with persistent I/O bindings.

    Inputs are uploaded and the engine is enqueued on ``_stream``; outputs are
    read back on a dedicated copy stream so the next request's upload can
    start while the previous readback is still draining.
    """

    def __init__(self, engine_path: str | Path) -> None:
        runtime = trt.Runtime(TRT_LOGGER)
        self.engine = runtime.deserialize_cuda_engine(Path(engine_path).read_bytes())
        if self.engine is None:
            raise RuntimeError(f"failed to deserialize {engine_path}")
        self.context = self.engine.create_execution_context()
        self._stream = check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        self._d2h_stream = check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        self.inputs: Dict[str, HostDeviceMem] = {}
        self.outputs: Dict[str, HostDeviceMem] = {}
        self._bind()

    def _bind(self) -> None:
        for i in range(self.engine.num_io_tensors):
            name = self.engine.get_tensor_name(i)
            shape = tuple(self.engine.get_tensor_shape(name))
            dtype = np.dtype(trt.nptype(self.engine.get_tensor_dtype(name)))
            mem = HostDeviceMem.allocate(name, shape, dtype)
            self.context.set_tensor_address(name, mem.device_ptr)
            if self.engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT:
                self.inputs[name] = mem
            else:
                self.outputs[name] = mem
        logger.info("bound inputs=%s outputs=%s", list(self.inputs), list(self.outputs))

    def _upload(self, feed: Mapping[str, np.ndarray]) -> None:
        for name, mem in self.inputs.items():
            np.copyto(mem.host, feed[name], casting="same_kind")
            check(cudart.cudaMemcpyAsync(mem.device_ptr, mem.host_ptr, mem.nbytes, _H2D, self._stream))

    def _enqueue_readback(self) -> None:
        for mem in self.outputs.values():
            # expect: KVG001
            check(cudart.cudaMemcpyAsync(mem.host_ptr, mem.device_ptr, mem.nbytes, _D2H, self._d2h_stream))

    def infer(self, feed: Mapping[str, np.ndarray]) -> Dict[str, np.ndarray]:
        self._upload(feed)
        if not self.context.execute_async_v3(self._stream):
            raise RuntimeError("execute_async_v3 failed")
        self._enqueue_readback()
        check(cudart.cudaStreamSynchronize(self._stream))
        # host output buffers are reused by the next call, hand back copies
        # expect: KVG003
        return {name: mem.host.copy() for name, mem in self.outputs.items()}

    def close(self) -> None:
        check(cudart.cudaStreamSynchronize(self._d2h_stream))
        for mem in (*self.inputs.values(), *self.outputs.values()):
            mem.free()
        check(cudart.cudaStreamDestroy(self._stream))
        check(cudart.cudaStreamDestroy(self._d2h_stream))
