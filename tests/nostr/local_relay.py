"""A real Nostr relay on loopback for the tests: rust-nostr's ``LocalRelay`` (the ``nostr-sdk``
wheel), in memory, in a process of its own (its API is asyncio; ours is trio).

Run as ``python local_relay.py PORT [ADDRESS]``: it prints ``ready`` once it listens on
ADDRESS:PORT (default 127.0.0.1; the NAT lab's relay address, in its public namespace) and stops
when its standard input closes (so it never outlives the test that started it).
"""

from __future__ import annotations

import asyncio
import sys


async def main(port: int, address: str) -> None:
    from nostr_sdk import LocalRelayBuilder

    relay = LocalRelayBuilder().addr(address).port(port).build()
    await relay.run()
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    relay.shutdown()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"))
