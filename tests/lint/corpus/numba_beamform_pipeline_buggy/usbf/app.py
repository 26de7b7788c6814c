from .geometry import Probe, receive_tables
from .pipeline import BeamformPipeline


def reconstruct(frames, xs, zs, probe=None):
    probe = probe or Probe()
    delays, apod = receive_tables(probe, xs, zs)
    pipeline = BeamformPipeline(delays, apod, n_samples=frames[0].shape[1])
    images = [None] * len(frames)

    def on_image(i, flat):
        images[i] = flat.reshape(len(zs), len(xs))

    pipeline.run(frames, on_image)
    return images
