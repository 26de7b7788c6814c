import torch

device_module = torch.get_device_module()


class LinkerBase:
    """Shared by the store linkers: what an offload waits on before it reads device pages."""

    forward_stream = None

    def record_ready(self):
        indices_done = device_module.Event()
        indices_done.record()
        events = [indices_done]
        if self.forward_stream is not None:
            pages_written = device_module.Event()
            pages_written.record(self.forward_stream)
            events.append(pages_written)
        return events
