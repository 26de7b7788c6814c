"""Prompt-cache snapshots for a decoder split over several GPUs (a ``device_map`` that puts the
first half of the layers on ``cuda:0`` and the rest on ``cuda:1``): the static KV cache is
allocated per layer on that layer's device (transformers' ``StaticCache`` with
``layer_device_map``). After the prefill of a shared prefix, each layer's K/V is copied to
pinned host memory on a per-device snapshot stream, so later requests with the same prefix can
be restored without recomputing it. The runner moves activations between devices with ``.to()``
but never changes the current device, which stays ``cuda:0``; each snapshot stream therefore
waits on the current stream *of its layer's device*."""
