"""A CPU offloading plugin for vLLM in the shape of ``vllm.v1.kv_offload``: the connector's
worker side routes each transfer job by (source medium, destination medium) to a
single-direction handler, which runs it on a stream taken from a pool, chained behind the
previous job of that direction, and reports it through ``get_finished`` once its end event
has completed.

Every job orders its stream behind the model's stream when it is submitted, then behind the
previous job of its direction.
"""
