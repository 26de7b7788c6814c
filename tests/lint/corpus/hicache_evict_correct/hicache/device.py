import torch

device_module = torch.get_device_module()


def new_stream():
    return device_module.Stream()


def new_event():
    return device_module.Event()
