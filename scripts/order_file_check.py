#!/usr/bin/env python3
"""Says whether link/reveilled.order still fits the release reveilled: the share of the functions it
lists that the binary still defines. Code changes rename and remove functions; the linker then
places fewer of the daemon's hot functions side by side, and its idle RSS creeps up (BENCHMARKS.md).
Below 90 %, run `make order-file`. Then `make bench` shows the idle RSS with the file as it is.
"""
import os, subprocess, sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
ORDER_FILE = os.path.join(ROOT, "link", "reveilled.order")
BINARY = os.path.join(ROOT, ".build", "release", "reveilled")


def main():
    if not os.path.exists(BINARY):
        sys.exit(f"{BINARY} is missing: make release-build first")
    listed = [line.strip() for line in open(ORDER_FILE) if line.strip()]
    # The release binary is linked with --no-export-dynamic but keeps its symbol table.
    out = subprocess.run(["nm", "--defined-only", BINARY], capture_output=True, text=True, check=True).stdout
    defined = {parts[-1] for parts in (line.split() for line in out.splitlines()) if len(parts) >= 3}
    present = sum(1 for name in listed if name in defined)
    share = present / len(listed) * 100 if listed else 0
    verdict = "fresh" if share >= 90 else "STALE: run `make order-file`, then `make bench`"
    print(f"== order file: {present} of {len(listed)} functions it lists still exist ({share:.1f} %): {verdict}")


if __name__ == "__main__":
    main()
