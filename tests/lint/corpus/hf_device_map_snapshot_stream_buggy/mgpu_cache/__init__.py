"""Prompt-cache snapshots for a decoder split over several GPUs (a ``device_map`` that puts the
first half of the layers on ``cuda:0`` and the rest on ``cuda:1``): the static KV cache is
allocated per layer on that layer's device (transformers' ``StaticCache`` with
``layer_device_map``). After the prefill of a shared prefix, each layer's K/V is copied to
pinned host memory on a per-device snapshot stream, so later requests with the same prefix can
be restored without recomputing it. The runner moves activations between devices with ``.to()``
but never changes the current device, which stays ``cuda:0``.

Bug: the snapshot stream of every device waits on ``torch.cuda.current_stream()``, i.e. on
``cuda:0``'s current stream. The layers on ``cuda:1`` wrote their cache on ``cuda:1``'s current
stream, which nothing orders the ``cuda:1`` snapshot stream behind (the hidden state crosses to
``cuda:1`` once, before those layers, and nothing comes back), so their K/V can be copied to the
host before the prefill wrote it (KVG001 on both copies; the ``cuda:0`` layers are fine)."""
