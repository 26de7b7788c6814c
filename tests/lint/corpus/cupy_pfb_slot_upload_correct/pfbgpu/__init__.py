"""Polyphase filterbank channeliser: raw voltage chunks arrive from the network into pinned
slots, are uploaded on a side stream and channelised on the compute stream."""
from .engine import Channeliser

__all__ = ["Channeliser"]
