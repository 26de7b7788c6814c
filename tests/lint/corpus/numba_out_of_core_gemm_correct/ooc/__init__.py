"""Out-of-core matrix multiply on numba-CUDA: A is streamed through the device in row tiles
while B stays resident. Three streams pipeline the work: tile t+1 is uploaded while tile t is
multiplied and tile t-1's result is downloaded. Two device slots per operand alternate between
tiles, and events order every hand-off between the streams."""
