"""Checkpoint and parameter-update transfers, issued on the I/O stream."""

from numba import cuda


def order_behind(producer, consumer):
    evt = cuda.event(timing=False)
    evt.record(producer)
    evt.wait(consumer)
    return evt


def snapshot_positions(d_pos, h_pos, streams):
    # expect: KVG001
    d_pos.copy_to_host(h_pos, stream=streams.io)
    done = cuda.event(timing=False)
    done.record(streams.io)
    return done


def upload_params(d_params, h_params, streams):
    # expect: KVG004
    d_params.copy_to_device(h_params, stream=streams.io)
    order_behind(streams.io, streams.compute)
