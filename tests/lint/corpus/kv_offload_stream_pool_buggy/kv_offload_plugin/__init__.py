"""A CPU offloading plugin for vLLM in the shape of ``vllm.v1.kv_offload``: the connector's
worker side routes each transfer job by (source medium, destination medium) to a
single-direction handler, which runs it on a stream taken from a pool, chained behind the
previous job of that direction, and reports it through ``get_finished`` once its end event
has completed.

Bug: only the first job of a direction orders its stream behind the model's stream; later jobs
only wait for the previous job's end event. That event was recorded on the previous job's stream,
so it says nothing about the forward passes that ran since. Stores may read blocks the model
is still writing (KVG001) and loads may overwrite blocks its kernels still read (KVG004).
"""
