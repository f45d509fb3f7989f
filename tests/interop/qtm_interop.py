"""odemocap serve against Qualisys's own Python SDK (../shared/clients/qtm_rt, MIT): with serve's
default options qtm_rt.connect() succeeds (it sends "version 1.25" in lower case), the
parameters name the bodies and the frequency, GetState answers with an event, 6D, 6DRes,
6DEuler and 6DEulerRes stream at least 95% of the frames with every pose equal to the capture's
to 0.01 mm, two clients at once, one leaving; components a capture cannot give are refused;
qtm_rt.Discover finds the server and a client connects by what it found.
Usage: qtm_interop.py ODEMOCAP SCRATCH_DIR"""
import asyncio
import math
import os
import socket
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "shared", "clients"))
import qtm_rt  # noqa: E402
from qtm_rt.packet import QRTEvent  # noqa: E402

import capture  # noqa: E402
from harness import check, finish, free_port, serving  # noqa: E402


def matrix_of(q):
    """Rotation matrix rows of quaternion (w, x, y, z)."""
    w, x, y, z = q
    return ((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))


def roll_pitch_yaw(r):
    """QTM's default Euler angles (degrees) of matrix rows r: R = Rz(yaw) Ry(pitch) Rx(roll)."""
    pitch = math.asin(max(-1.0, min(1.0, -r[2][0])))
    roll = math.atan2(r[2][1], r[2][2])
    yaw = math.atan2(r[1][0], r[0][0])
    return tuple(math.degrees(a) for a in (roll, pitch, yaw))


class Collector:
    def __init__(self):
        self.packets = {}

    def __call__(self, packet):
        self.packets[packet.framenumber] = packet


async def stream(port, components, seconds):
    connection = await qtm_rt.connect("127.0.0.1", port=port)
    check(connection is not None, f"qtm_rt.connect() succeeds ({components})")
    if connection is None:
        return {}
    collect = Collector()
    await connection.stream_frames(components=components, on_packet=collect)
    await asyncio.sleep(seconds)
    await connection.stream_frames_stop()
    connection.disconnect()
    return collect.packets


def check_poses(packets, getter, what):
    worst_p, worst_r, bodies = 0.0, 0.0, 0
    for number, packet in packets.items():
        got = getattr(packet, getter)()
        if got is None:
            check(False, f"{what}: packet {number} has no such component")
            return
        _, values = got
        row = number % capture.FRAMES
        for b, value in enumerate(values):
            p, q = capture.pose(capture.BODIES[b], row)
            worst_p = max(worst_p, max(abs(u - 1000.0 * v) for u, v in zip(value[0], p)))
            r = matrix_of(q)
            if getter in ("get_6d", "get_6d_residual"):
                m = value[1].matrix  # column by column: R11, R21, R31, R12, ...
                worst_r = max(worst_r, max(abs(m[3 * c + row_] - r[row_][c])
                                           for c in range(3) for row_ in range(3)))
            else:
                angles = (value[1].a1, value[1].a2, value[1].a3)
                worst_r = max(worst_r, max(abs(a - b) for a, b in zip(angles, roll_pitch_yaw(r))) / 1000.0)
            bodies += 1
    check(bodies > 0 and worst_p <= 0.01, f"{what}: positions to {worst_p:.3g} mm over {bodies} bodies")
    check(bodies > 0 and worst_r <= 1e-5, f"{what}: rotations to {worst_r:.3g}")


async def run(port):
    connection = await qtm_rt.connect("127.0.0.1", port=port)  # sends "version 1.25"
    check(connection is not None, "qtm_rt.connect() with its defaults")
    if connection is None:
        return
    xml = await connection.get_parameters(parameters=["general", "3d", "6d"])
    root = ET.fromstring(xml)
    check(root.tag == "QTM_Parameters_Ver_1.25", f"parameters root {root.tag}")
    frequency = root.findtext("General/Frequency")
    check(frequency is not None and float(frequency) == capture.RATE, f"General/Frequency {frequency}")
    names = [b.findtext("Name") for b in root.findall("The_6D/Body")]
    check(names == list(capture.BODIES), f"6D bodies {names}")
    body = root.find("The_6D/Body")
    needed = ["Name", "Enabled", "Color", "MaximumResidual", "MinimumMarkersInBody",
              "BoneLengthTolerance", "Filter", "Points", "Data_origin", "Data_orientation"]
    check(body is not None and all(body.find(n) is not None for n in needed),
          "a 6D body carries what the C++ SDK's parser needs (Color, MaximumResidual, ...)")
    check(root.find("The_3D/AxisUpwards") is not None, "3D parameters present")
    state = await connection.get_state()
    check(isinstance(state, QRTEvent), f"GetState answers with an event: {state}")
    frame = await connection.get_current_frame(components=["6d"])
    check(frame is not None and frame.get_6d() is not None, "GetCurrentFrame 6d")
    try:
        await connection.stream_frames(components=["analog"], on_packet=lambda p: None)
        check(False, "a component the capture cannot give is refused")
    except qtm_rt.QRTCommandException as e:
        check("not available" in str(e), f"analog refused: {e}")
    connection.disconnect()

    # Two clients at once, the second leaving after 1 s.
    first = asyncio.ensure_future(stream(port, ["6d"], 2.5))
    await asyncio.sleep(0.2)
    second = await stream(port, ["6deuler"], 1.0)
    packets = await first
    numbers = sorted(packets)
    span = numbers[-1] - numbers[0] + 1 if numbers else 0
    check(span >= 0.95 * capture.RATE * 2.3, f"6d over {span} frame numbers")
    check(len(numbers) >= 0.95 * span and span > 0, f"6d: {len(numbers)} of {span} frames")
    check(len(second) >= 0.95 * capture.RATE * 1.0 - 5, f"second client: {len(second)} frames in 1 s")
    check_poses(packets, "get_6d", "6D")
    check_poses(second, "get_6d_euler", "6DEuler")
    for components, getter in ((["6dres"], "get_6d_residual"), (["6deulerres"], "get_6d_euler_residual")):
        check_poses(await stream(port, components, 0.5), getter, components[0])


async def discover(port):
    """qtm_rt.Discover's broadcast on each of this machine's addresses finds the server, which
    gives its base port (its RT port - 1), as QTM does; a client connects by what it found."""
    addresses = ["127.0.0.1"]
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    try:
        probe.connect(("255.255.255.255", 22226))  # a route for the broadcast; sends nothing
        addresses.append("0.0.0.0")
    except OSError:
        print("skipped: discovery from 0.0.0.0 (no route for a broadcast)")
    finally:
        probe.close()
    for address in addresses:
        found = []
        async for response in qtm_rt.Discover(address):
            found.append(response)
        ours = [r for r in found if r.port == port - 1]
        check(len(ours) == 1 and ours[0].info.startswith(b"odemocap serve"),
              f"discovery from {address} finds the server once: {found}")
        if ours:
            connection = await qtm_rt.connect(ours[0].host, port=ours[0].port + 1)
            check(connection is not None, f"connect to what discovery from {address} found")
            if connection is not None:
                connection.disconnect()


def main():
    odemocap, scratch = sys.argv[1], sys.argv[2]
    port = free_port(socket.SOCK_STREAM)
    with serving(odemocap, scratch, "qtm", port):
        asyncio.run(run(port))
        asyncio.run(discover(port))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
