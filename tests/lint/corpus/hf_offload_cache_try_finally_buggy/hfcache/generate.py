from hfcache.cache import DoubleBufferedOffloadedCache


class OffloadedDecoder:
    def __init__(self, layers, shape):
        self.layers = layers
        self.cache = DoubleBufferedOffloadedCache(len(layers), shape)

    def decode_step(self, hidden, save_dir=None):
        self.cache.prefetch_layer(0)
        for i, layer in enumerate(self.layers):
            kv = self.cache.layer(i)
            if i + 1 < len(self.layers):
                self.cache.prefetch_layer(i + 1)
            hidden = layer(hidden, kv)  # attends over and appends to kv in place
            if save_dir is not None:
                self.cache.write_back_and_save(i, f"{save_dir}/layer{i}.pt")
        return hidden
