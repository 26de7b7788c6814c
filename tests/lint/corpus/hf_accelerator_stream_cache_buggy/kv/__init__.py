"""Layered offloaded cache in the shape of transformers' ``Cache(offloading=True)``, written
against the device-generic ``torch.Stream`` / ``torch.accelerator`` API."""
