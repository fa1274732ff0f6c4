"""The NAT lab (natlab.py) is what tests of the relay rely on it to be: a home reaches the relay
and is seen there at its router's public address, a home cannot reach another home at all (the
connect hangs, nothing refuses it), the real transit relay pairs two homes, a delay is the round
trip the lab's docstring says, and nothing of a lab is left behind, even by a run killed midway."""

from __future__ import annotations

import secrets
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.net.natlab import RELAY_ADDRESS, Lab, clean_leftovers, needs_lab, netns_names
from tests.patience import HANG_S

pytestmark = needs_lab()

ROOT = Path(__file__).resolve().parent.parent.parent

SERVER = """
import socket, sys
server = socket.create_server((sys.argv[1], int(sys.argv[2])))
print("listening", flush=True)
for _ in range(int(sys.argv[3])):
    peer, (host, port) = server.accept()
    print(host, flush=True)
    peer.close()
"""
"""A TCP server that prints the address of each of its first argv[3] peers."""

RELAY_CLIENT = f"""
import socket, sys, time
token, side, role = sys.argv[1:4]
relay = socket.create_connection(("{RELAY_ADDRESS}", 4001), timeout={HANG_S})
relay.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
relay.sendall(f"please relay {{token}} for side {{side}}\\n".encode())
lines = relay.makefile("rb")
assert lines.readline() == b"ok\\n"
if role == "a":
    relay.sendall(b"hello\\n")
    time.sleep(0.3)  # (every segment so far acknowledged: no Nagle wait in the pings)
    trips = []
    for _ in range(3):
        start = time.monotonic()
        relay.sendall(b"ping\\n")
        assert lines.readline() == b"ping\\n"
        trips.append(time.monotonic() - start)
    print(min(trips))
else:
    print(lines.readline().decode().strip(), flush=True)
    for _ in range(3):
        relay.sendall(lines.readline())
"""
"""A transit-relay client: side a says hello and times three pings that side b echoes."""


PUNCH = """
import socket, sys, time
mine, peer, port = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
deadline = time.monotonic() + 2
while time.monotonic() < deadline:
    attempt = socket.socket()
    attempt.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    attempt.bind(("0.0.0.0", mine))
    attempt.settimeout(0.3)
    try:
        attempt.connect((peer, port))
    except OSError:
        attempt.close()
        time.sleep(0.05)
    else:
        print("through")
        break
else:
    print("no way")
"""
"""TCP simultaneous open from port argv[1] to argv[2]:argv[3], tried for 2 s."""


def leftovers(lab: Lab) -> list[str]:
    return [name for name in netns_names() if name.startswith(lab.prefix)]


def relayed(lab: Lab) -> tuple[str, float]:
    """What home-b read from home-a through the relay, and the shortest a -> b -> a round trip."""
    token = secrets.token_hex(32)
    a, b = (
        lab.python(side, RELAY_CLIENT, token, secrets.token_hex(8), side, stdout=subprocess.PIPE, text=True)
        for side in ("a", "b")
    )
    a_said, _ = a.communicate(timeout=HANG_S)
    b_said, _ = b.communicate(timeout=HANG_S)
    assert a.returncode == 0 and b.returncode == 0, (a_said, b_said)
    return b_said.strip(), float(a_said)


def test_a_home_reaches_the_relay_which_sees_its_routers_public_address(tmp_path: Path) -> None:
    with Lab(sites=2, workdir=tmp_path) as lab:
        lab.start_relay()
        assert lab.connect("a", RELAY_ADDRESS, 4001).outcome == "connected"
        server = lab.python("pub", SERVER, RELAY_ADDRESS, "5000", "2", stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None and server.stdout.readline() == "listening\n"
        for home in ("a", "b"):
            assert lab.connect(home, RELAY_ADDRESS, 5000).outcome == "connected"
        said, _ = server.communicate(timeout=HANG_S)
        assert (
            said.split() == [lab.site("a").public, lab.site("b").public] == ["203.0.113.21", "203.0.113.22"]
        )
    assert leftovers(lab) == []
    assert (tmp_path / "relay.log").exists() and not (ROOT / "twistd.log").exists()


def test_a_home_cannot_reach_another_home_and_nothing_refuses_it(tmp_path: Path) -> None:
    with Lab(sites=2, workdir=tmp_path) as lab:
        b = lab.site("b")
        server = lab.python("b", SERVER, "0.0.0.0", "7000", "9", stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None and server.stdout.readline() == "listening\n"
        assert lab.connect("b", b.address, 7000).outcome == "connected"  # (it is up)
        with ThreadPoolExecutor() as pool:
            tries = list(
                pool.map(lambda host: lab.connect("a", host, 7000, timeout=1.5), [b.address, b.public])
            )
        assert [tried.outcome for tried in tries] == ["timeout", "timeout"], tries
        assert all(tried.seconds >= 1.4 for tried in tries), tries
        server.terminate()
        said, _ = server.communicate(timeout=HANG_S)
        assert said.split() == [b.address]  # only home-b's own connect got there
    assert leftovers(lab) == []


def test_the_transit_relay_pairs_two_homes_behind_different_nats(tmp_path: Path) -> None:
    with Lab(sites=3, workdir=tmp_path) as lab:
        lab.start_relay()
        heard, _ = relayed(lab)
        assert heard == "hello"
    assert leftovers(lab) == []


@pytest.mark.parametrize(("symmetric", "outcome"), [(False, "through"), (True, "no way")])
def test_two_homes_punch_through_cone_nats_and_not_through_symmetric_ones(
    tmp_path: Path, symmetric: bool, outcome: str
) -> None:
    with Lab(sites=2, workdir=tmp_path, symmetric=symmetric) as lab:
        a, b = lab.site("a"), lab.site("b")
        ends = [("a", "5555", b.public, "6666"), ("b", "6666", a.public, "5555")]
        punches = [lab.python(home, PUNCH, *rest, stdout=subprocess.PIPE, text=True) for home, *rest in ends]
        assert [punch.communicate(timeout=HANG_S)[0].strip() for punch in punches] == [outcome] * 2
    assert leftovers(lab) == []


@needs_lab(delay=True)
def test_a_delay_gives_the_round_trips_the_docstring_says(tmp_path: Path) -> None:
    delay_s = 0.025
    with Lab(sites=2, delay_ms=delay_s * 1000, workdir=tmp_path) as lab:
        lab.start_relay()
        connects = [lab.connect("a", RELAY_ADDRESS, 4001).seconds for _ in range(3)]
        # Every connect waits the delay both ways; the quickest of them (load only ever adds to
        # one) is not held up twice as long.
        assert all(0.9 * 2 * delay_s <= took for took in connects) and min(connects) < 2 * 2 * delay_s, (
            connects
        )
        heard, trip = relayed(lab)
        assert heard == "hello"
        assert 0.9 * 4 * delay_s <= trip < 2 * 4 * delay_s
    assert leftovers(lab) == []


def gone(pid: int) -> bool:
    """Whether a process (not a child of ours) has ended: it is not there, or a zombie."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def test_what_a_killed_run_left_is_cleaned_up_and_its_processes_end(tmp_path: Path) -> None:
    script = (
        "import time\nfrom tests.net.natlab import Lab\n"
        f"lab = Lab(sites=1, delay_ms=5, workdir={str(tmp_path)!r})\n"
        "assert lab._wire is not None\n"
        "print(lab.prefix, lab._wire.pid, lab.start_relay().pid, flush=True)\ntime.sleep(60)\n"
    )
    run = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert run.stdout is not None
        prefix, *pids = run.stdout.readline().split()
        left = [name for name in netns_names() if name.startswith(prefix)]  # (its lab, running)
    finally:
        run.send_signal(signal.SIGKILL)  # no close(), no atexit
        run.wait(timeout=HANG_S)
    assert len(left) == 3
    # (Cleaned here, or by a lab another worker of the suite builds at the same moment: gone.)
    assert set(clean_leftovers()) <= set(left)
    assert [name for name in netns_names() if name.startswith(prefix)] == []
    deadline = time.monotonic() + HANG_S
    while not all(gone(int(pid)) for pid in pids):  # the wire (its pipe's writer died) and the relay
        assert time.monotonic() < deadline, "a process outlived its lab"
        time.sleep(0.02)
