NUM_STAGING_SLOTS = 2
"""Number of device staging areas; module `i` runs out of slot `i % NUM_STAGING_SLOTS`."""

STAGING_ALIGNMENT = 256
"""Byte alignment of every tensor view carved out of a staging slot."""
