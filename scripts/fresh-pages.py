#!/usr/bin/env python3
"""The machine's cost of fresh memory (not part of `make test`): maps GIB gibibytes of anonymous
memory and writes one byte per 4 KiB page, so that the kernel zeroes and (in a virtual machine)
the host backs every page, as a large start from the prepared cache does for its ~6 GB at 4.7M
parcels. Prints the seconds and GB/s. Run it beside scripts/start-scale.sh: on this project's
2-core VM the same 6 GiB took from 4.5 s to 53 s within one morning, which is the spread of the
4.7M start.
Usage: scripts/fresh-pages.py [GIB]   (default 6)"""
import mmap
import sys
import time

gib = float(sys.argv[1]) if len(sys.argv) > 1 else 6.0
n = int(gib * (1 << 30)) // 4096 * 4096
t = time.monotonic()
m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
m[::4096] = b"\x01" * (n // 4096)
s = time.monotonic() - t
print(f"fresh_pages_gib {gib:g}")
print(f"fresh_pages_s {s:.2f}")
print(f"fresh_pages_gb_per_s {n / s / 1e9:.2f}")
m.close()
