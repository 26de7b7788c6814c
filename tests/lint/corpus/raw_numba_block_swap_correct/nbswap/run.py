from nbswap.swapper import BlockSwapper


def main(steps=16, n_blocks=8, block_elems=1 << 16):
    swapper = BlockSwapper(n_blocks, block_elems)
    for step in range(steps):
        idx = step % n_blocks
        swapper.update(idx, 0.5)
        if step % 4 == 3:
            print(step, swapper.checksum(idx))
            swapper.swap_in((idx + 1) % n_blocks, idx)
    swapper.compute.synchronize()


if __name__ == "__main__":
    main()
