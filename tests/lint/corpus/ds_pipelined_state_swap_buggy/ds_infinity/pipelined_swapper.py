# SPDX-License-Identifier: Apache-2.0
"""Optimizer state swapping for a GPU optimizer step over NVMe-resident state, pipelined the way
``PipelinedOptimizerSwapper`` is: the device-to-host copy of one parameter's updated state runs on
a swap stream while the next parameter's step runs, and its NVMe write is issued on the next call.
"""

from deepspeed.accelerator import get_accelerator
from deepspeed.ops.op_builder import AsyncIOBuilder

from .swap_op import OptimizerSwapOp
from .swap_utils import SwapBufferManager, get_sized_buffer, state_swap_paths, swap_in_tensors, swap_out_tensors

SYNC_SWAP_IN = "sync_swap_in"
ASYNC_SWAP_OUT = "async_swap_out"


class PipelinedOptimizerSwapper:
    def __init__(self, swap_folder, aio_config, largest_numel, num_states, dtype, device):
        aio_op = AsyncIOBuilder().load(verbose=False)
        handle_args = (aio_config["block_size"], aio_config["queue_depth"], aio_config["single_submit"],
                       aio_config["overlap_events"], aio_config["intra_op_parallelism"])
        self.read_aio_handle = aio_op.aio_handle(*handle_args)
        self.write_aio_handle = aio_op.aio_handle(*handle_args)
        self.swap_folder = swap_folder
        self.num_states = num_states
        self.device = device
        # two parameters' worth: the one being stepped and the one being written out
        self.swap_buffer_manager = SwapBufferManager(largest_numel, 2 * num_states, dtype)
        self.swap_out_stream = get_accelerator().Stream()
        self.swap_ops = {SYNC_SWAP_IN: None, ASYNC_SWAP_OUT: None}

    def swap_in_optimizer_state(self, param_id, numel):
        assert self.swap_ops[SYNC_SWAP_IN] is None
        allocated = self.swap_buffer_manager.allocate(numel, self.num_states)
        assert allocated is not None, "PipelinedOptimizerSwapper ran out of swap buffers"
        state_buffers = [get_sized_buffer(buf, numel) for buf in allocated]
        paths = state_swap_paths(self.swap_folder, param_id, self.num_states)
        swap_in_tensors(self.read_aio_handle, state_buffers, paths)
        op = OptimizerSwapOp(aio_handle=self.read_aio_handle, param_id=param_id, allocated_buffers=allocated,
                             state_buffers=state_buffers, swap_paths=paths, num_ops=len(state_buffers))
        op.wait()
        self.swap_ops[SYNC_SWAP_IN] = op
        # fresh device tensors for the step; the pinned buffers are reused for the swap out
        return [buf.to(self.device, non_blocking=True) for buf in state_buffers]

    def swap_out_optimizer_state(self, param_id, device_states):
        op = self.swap_ops[SYNC_SWAP_IN]
        assert op is not None and op.param_id == param_id
        self.swap_ops[SYNC_SWAP_IN] = None

        # write out the parameter the previous call copied to the host
        self._complete_async_swap_out()

        self.swap_out_stream.wait_stream(get_accelerator().current_stream())
        with get_accelerator().stream(self.swap_out_stream):
            for pinned, state in zip(op.state_buffers, device_states):
                pinned.copy_(state.view(-1), non_blocking=True)
                state.record_stream(self.swap_out_stream)
        op.copy_done = get_accelerator().Event()
        op.copy_done.record(self.swap_out_stream)
        op.aio_handle = self.write_aio_handle
        op.wait_required = True
        self.swap_ops[ASYNC_SWAP_OUT] = op

    def _complete_async_swap_out(self):
        op = self.swap_ops[ASYNC_SWAP_OUT]
        if op is None:
            return
        # a whole optimizer step of another parameter ran since this copy was queued
        swap_out_tensors(op.aio_handle, op.state_buffers, op.swap_paths)
        op.num_ops = len(op.state_buffers)
        op.wait()
        self.swap_buffer_manager.free(op.allocated_buffers)
        self.swap_ops[ASYNC_SWAP_OUT] = None

    def flush(self):
        self._complete_async_swap_out()
