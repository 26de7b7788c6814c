"""Drive a stack of layers and snapshot their KV rows."""

from .snapshot import LayerSnapshotter


def run(layers, head, x, f):
    snap = LayerSnapshotter(len(layers), x.shape[-1])
    for i, layer in enumerate(layers):
        x = layer(x, snap.kv)
        snap(i, x)
        snap.store_layer(i)
    snap.dump(f)
    logits = head(x, snap.kv)  # reads every layer's row on the compute stream
    warm = snap.restore(0)
    return logits, warm, snap.peek(0)
