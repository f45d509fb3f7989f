"""odemocap serve against a NatNet client written by others (../shared/clients/natnet, MIT):
with serve's default options the client connects, reads the model definitions, receives at
least 95% of the frames and every pose equals the capture's to 1e-6 m; two clients at once,
one of them leaving; NatNet 2.9 and 4.1 (section sizes, assets) read by the client's own
reader; with --multicast, the client in its multicast mode joined on 127.0.0.1 (its default)
and on the routed interface gets every frame once. Usage: natnet_interop.py ODEMOCAP SCRATCH_DIR"""
import os
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "shared", "clients"))
from natnet import NatNetClient  # noqa: E402
from natnet.data_descriptions import DataDescriptions  # noqa: E402
from natnet.data_frame import DataFrame  # noqa: E402
from natnet.packet_buffer import PacketBuffer  # noqa: E402
from natnet.server_info import ServerInfo  # noqa: E402
from natnet.version import Version  # noqa: E402

import capture  # noqa: E402
from harness import check, finish, free_port, serving  # noqa: E402


class Listener:
    """Collects what one client receives."""

    def __init__(self, port):
        self.client = NatNetClient(server_ip_address="127.0.0.1", local_ip_address="127.0.0.1",
                                   command_port=port, use_multicast=False)
        self.frames = {}
        self.descriptions = []
        self.lock = threading.Lock()
        self.client.on_data_frame_received_event.handlers.append(self.on_frame)
        self.client.on_data_description_received_event.handlers.append(self.on_descriptions)

    def on_frame(self, frame):
        with self.lock:
            self.frames[frame.prefix.frame_number] = frame

    def on_descriptions(self, descriptions):
        with self.lock:
            self.descriptions.append(descriptions)

    def finish(self):
        """Stops the client; what it received (frames by number) and the rigid bodies' names
        in the last model definitions."""
        self.client.stop_async()
        with self.lock:
            frames = dict(self.frames)
            descriptions = list(self.descriptions)
        self.client.shutdown()
        names = [rb.name for rb in descriptions[-1].rigid_bodies] if descriptions else []
        return frames, names


def check_poses(frames, what):
    """Every rigid body of every frame at the capture's pose (Y up) to 1e-6."""
    worst_p, worst_q = 0.0, 0.0
    for n, frame in frames.items():
        row = n % capture.FRAMES
        for rb in frame.rigid_bodies:
            p, q = capture.z_up_to_y_up(*capture.pose(capture.BODIES[rb.id_num - 1], row))
            worst_p = max(worst_p, max(abs(u - v) for u, v in zip(rb.pos, p)))
            worst_q = max(worst_q, capture.angle_between((rb.rot[3], rb.rot[0], rb.rot[1], rb.rot[2]), q))
    check(frames and worst_p <= 1e-6, f"{what}positions equal the capture's: worst {worst_p:.3g} m")
    check(frames and worst_q <= 1e-6, f"{what}orientations equal the capture's: worst {worst_q:.3g} rad")


def main():
    odemocap, scratch = sys.argv[1], sys.argv[2]
    port = free_port(socket.SOCK_DGRAM)
    with serving(odemocap, scratch, "natnet", port):
        run(port)
        run_raw(port)
    # A lab's NatNet 2.x client says nothing of its version: --natnet-version serves it.
    port = free_port(socket.SOCK_DGRAM)
    with serving(odemocap, scratch, "natnet", port, ["--natnet-version", "2.9"]):
        old = Raw(port)
        old.send(0, b"Ping\0")
        info = old.receive(1)
        version = info and ServerInfo.read_from_buffer(PacketBuffer(info[4:]), None).nat_net_protocol_version
        check(version is not None and (version.major, version.minor) == (2, 9),
              f"--natnet-version 2.9 serves a plain Ping 2.9: {version}")
        packet = old.receive(7)
        if packet is not None:
            check_frame_values(DataFrame.read_from_buffer(PacketBuffer(packet[4:]), Version(2, 9)),
                               "--natnet-version 2.9 frame")
        old.send(9)
    # NatNet 4.1 (Motive 3.1+: each section's byte size, an asset section), read by the real
    # client: served to a client of a 4.1 server, and to one that asks for it by Bitstream.
    port = free_port(socket.SOCK_DGRAM)
    with serving(odemocap, scratch, "natnet", port, ["--natnet-version", "4.1"]):
        run_41(port, ask=False)
    port = free_port(socket.SOCK_DGRAM)
    with serving(odemocap, scratch, "natnet", port, ["--natnet-version", "4.0"]):
        run_41(port, ask=True)
    # Multicast, Motive's default streaming mode: the client joins the group on the local
    # address it is given (127.0.0.1 by default), and on the interface this machine routes the
    # group through where it has one. Each case has a group of its own (Linux hands a socket
    # every group's datagrams joined on the machine, on any interface).
    for group, local in (("239.255.42.81", "127.0.0.1"), ("239.255.42.82", routed_address())):
        if local is None:
            print("skipped: multicast joined on the routed interface (no route but loopback)")
            continue
        port, data_port = free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_DGRAM)
        with serving(odemocap, scratch, "natnet", port,
                     ["--multicast", group, "--data-port", str(data_port)]):
            run_multicast(port, group, data_port, local)
    return finish()


def routed_address():
    """This machine's address on the interface it routes multicast through; None when that
    is loopback or there is none."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("239.255.42.82", 9))  # picks the route; sends nothing
        address = s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()
    return None if address.startswith("127.") else address


def run_multicast(port, group, data_port, local):
    """The client in its multicast mode, joined on `local`: it gets the frames, each once,
    at the capture's poses."""
    client = NatNetClient(server_ip_address="127.0.0.1", local_ip_address=local,
                          multicast_address=group, command_port=port, data_port=data_port,
                          use_multicast=True)
    numbers, frames, lock = [], {}, threading.Lock()

    def on_frame(frame):
        with lock:
            numbers.append(frame.prefix.frame_number)
            frames[frame.prefix.frame_number] = frame

    client.on_data_frame_received_event.handlers.append(on_frame)
    client.connect(timeout=5.0)
    client.run_async()
    time.sleep(1.5)
    client.stop_async()
    client.shutdown()
    with lock:
        got, distinct = len(numbers), len(set(numbers))
        span = max(numbers) - min(numbers) + 1 if numbers else 0
        received = dict(frames)
    what = f"multicast {group} joined on {local}: "
    check(span >= 0.95 * capture.RATE * 1.0, f"{what}frames over {span} frame numbers in 1.5 s")
    check(span > 0 and distinct >= 0.95 * span, f"{what}{distinct} of the {span} frames arrived")
    check(got == distinct, f"{what}each frame once ({got} datagrams, {distinct} frames)")
    check_poses(received, what)


def run_41(port, ask):
    """A client of a 4.1 server (ask False): the real client end to end. Or a raw client of a 4.0
    server that asks for 4.1 by Bitstream (ask True): the real client's reader on the frames
    after the server's answer (the real client switches its reader when it sends the command,
    so the frames already on their way would be read as 4.1 by its thread)."""
    what = "asked 4.1 by Bitstream" if ask else "a 4.1 server"
    if ask:
        raw = Raw(port)
        raw.send(0, b"Ping\0")
        info = raw.receive(1)
        version = info and ServerInfo.read_from_buffer(PacketBuffer(info[4:]), None).nat_net_protocol_version
        check(version is not None and (version.major, version.minor) == (4, 0), f"{what}: first served {version}")
        raw.send(2, b"Bitstream,4.1\0")
        answer = raw.receive(3)
        check(answer is not None and struct.unpack_from("<i", answer, 4)[0] == 0,
              f"{what}: the server answers 0 (done): {answer and answer.hex()}")
        raw.send(4)
        models = raw.receive(5)
        names = []
        if models is not None:
            descriptions = DataDescriptions.read_from_buffer(PacketBuffer(models[4:]), Version(4, 1))
            names = [rb.name for rb in descriptions.rigid_bodies]
        frames = {}
        end = time.time() + 1.0
        while time.time() < end:
            packet = raw.receive(7)
            if packet is not None:
                frame = DataFrame.read_from_buffer(PacketBuffer(packet[4:]), Version(4, 1))
                frames[frame.prefix.frame_number] = frame
        raw.send(9)
        seconds = 1.0
    else:
        a = Listener(port)
        a.client.connect(timeout=5.0)
        version = a.client.protocol_version
        check(version is not None and (version.major, version.minor) == (4, 1),
              f"{what}: the client reads NatNet {version}")
        a.client.request_modeldef()
        a.client.run_async()
        time.sleep(1.5)
        frames, names = a.finish()
        seconds = 1.5
    check(names == list(capture.BODIES), f"{what}: model definitions name the bodies: {names}")
    check(len(frames) >= 0.95 * capture.RATE * seconds - 10,
          f"{what}: {len(frames)} frames in {seconds} s")
    for n, frame in frames.items():
        check(frame.assets == (), f"{what}: frame {n} has an empty asset section")
    check_poses(frames, f"{what}: ")


def run(port):
    a = Listener(port)
    a.client.connect(timeout=5.0)
    info = a.client.server_info
    check(info is not None, "client A got the server info")
    check(info is not None and info.nat_net_protocol_version.major >= 3,
          f"protocol version {info and info.nat_net_protocol_version}")
    a.client.request_modeldef()
    a.client.run_async()
    # A client left at its own defaults (multicast mode, data socket on the group): Motive's
    # unicast answer to its command socket still reaches it.
    plain = NatNetClient(command_port=port)
    plain_frames = set()
    plain.on_data_frame_received_event.handlers.append(
        lambda f: plain_frames.add(f.prefix.frame_number))
    plain.connect(timeout=5.0)
    plain.run_async()
    time.sleep(1.0)
    plain.stop_async()
    plain.shutdown()
    check(len(plain_frames) >= 0.95 * capture.RATE - 5,
          f"a client with its default settings received {len(plain_frames)} frames in 1 s")
    b = Listener(port)
    b.client.connect(timeout=5.0)
    b.client.run_async()
    time.sleep(1.0)
    b_frames = len(b.finish()[0])
    time.sleep(2.0)
    frames, names = a.finish()
    check(names == list(capture.BODIES), f"model definitions name the bodies: {names}")
    check(b_frames >= 0.95 * capture.RATE * 1.0 - 5, f"client B received {b_frames} frames in 1 s")
    numbers = sorted(frames)
    span = numbers[-1] - numbers[0] + 1 if numbers else 0
    check(span >= 0.95 * capture.RATE * 2.5, f"client A saw frames over {span} frame numbers")
    check(len(numbers) >= 0.95 * span and span > 0,
          f"client A received {len(numbers)} of the {span} frames in its window")
    check_poses(frames, "")


class Raw:
    """A bare UDP client, for what the protocol's description says a server sends."""

    def __init__(self, port):
        self.server = ("127.0.0.1", port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(2.0)

    def send(self, message, payload=b""):
        self.sock.sendto(struct.pack("<HH", message, len(payload)) + payload, self.server)

    def receive(self, message, timeout=2.0):
        """The next packet with this message id (others are skipped)."""
        end = time.time() + timeout
        while time.time() < end:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                break
            if len(data) >= 4 and struct.unpack_from("<H", data)[0] == message:
                return data
        return None


def versioned_connect(major, minor):
    """A NatNet 4 SDK's connect payload: "Ping", zeros, the version at byte 265, a NUL."""
    payload = bytearray(271)
    payload[0:4] = b"Ping"
    payload[265:269] = bytes([major, minor, 0, 0])
    return bytes(payload)


def check_frame_values(frame, what):
    worst = 0.0
    row = frame.prefix.frame_number % capture.FRAMES
    for rb in frame.rigid_bodies:
        p, _ = capture.z_up_to_y_up(*capture.pose(capture.BODIES[rb.id_num - 1], row))
        worst = max(worst, max(abs(u - v) for u, v in zip(rb.pos, p)))
    check(frame.rigid_bodies and worst <= 1e-6, f"{what}: positions to {worst:.3g} m")


def run_raw(port):
    # The server info as Motive 2.1 (NatNet 3.0+) writes it: 279 payload bytes.
    a = Raw(port)
    a.send(0, b"Ping\0")
    info = a.receive(1)
    check(info is not None and len(info) == 4 + 279, f"server info payload {info and len(info) - 4} bytes (279)")
    if info is not None and len(info) >= 4 + 279:
        name = info[4:260].split(b"\0")[0]
        clock, data_port, multicast = struct.unpack_from("<QHB", info, 4 + 264)
        check(name == b"odemocap serve" and clock > 0 and multicast == 0,
              f"server info: {name}, clock {clock} Hz, multicast {multicast}")
    frame_packet = a.receive(7)
    check(frame_packet is not None, "a raw client connected with a plain Ping receives frames")
    if frame_packet is not None:
        frame = DataFrame.read_from_buffer(PacketBuffer(frame_packet[4:]), Version(3, 1))
        suffix = frame.suffix
        check(suffix.stamp_camera_mid_exposure is not None and suffix.stamp_camera_mid_exposure > 0
              and suffix.stamp_transmit >= suffix.stamp_camera_mid_exposure,
              f"3.x timestamps filled: {suffix.stamp_camera_mid_exposure}, {suffix.stamp_transmit}")
        check(abs(suffix.stamp_camera_mid_exposure / clock - suffix.timestamp) < 1e-6,
              "the mid-exposure stamp is the frame's timestamp on the server clock")
    # Echo: the request's stamp comes back with the server's.
    a.send(12, struct.pack("<Q", 123456789))
    echo = a.receive(13)
    check(echo is not None and len(echo) == 20 and struct.unpack_from("<Q", echo, 4)[0] == 123456789,
          f"echo answered: {echo and echo.hex()}")

    # A second client on the same host; the first disconnects: only the first stops.
    b = Raw(port)
    b.send(0, b"Ping\0")
    check(b.receive(1) is not None, "second raw client greeted")
    a.send(9)
    time.sleep(0.2)
    while True:  # drain what was in flight
        try:
            a.sock.settimeout(0.05)
            a.sock.recv(65536)
        except socket.timeout:
            break
    a.sock.settimeout(0.5)
    check(a.receive(7, timeout=0.5) is None, "the disconnected client gets no more frames")
    check(b.receive(7) is not None, "the other client on the same host still gets frames")

    # NatNet 2.x: a client that asks for 2.9 is served 2.9 (decoded by the client's own reader).
    c = Raw(port)
    c.send(0, versioned_connect(2, 9))
    info = c.receive(1)
    if info is not None:
        version = ServerInfo.read_from_buffer(PacketBuffer(info[4:]), None).nat_net_protocol_version
        check(version.major == 2 and version.minor == 9, f"asked 2.9, served {version}")
        check(len(info) == 4 + 264, f"a 2.x server info has 264 payload bytes: {len(info) - 4}")
    else:
        check(False, "asked 2.9: no server info")
    packet = c.receive(7)
    check(packet is not None, "a 2.9 client receives frames")
    if packet is not None:
        check_frame_values(DataFrame.read_from_buffer(PacketBuffer(packet[4:]), Version(2, 9)), "2.9 frame")
    # A newer client asking 4.2 is served the newest we write (4.1), and says so.
    d = Raw(port)
    d.send(0, versioned_connect(4, 2))
    info = d.receive(1)
    version = info and ServerInfo.read_from_buffer(PacketBuffer(info[4:]), None).nat_net_protocol_version
    check(version is not None and version.major == 4 and version.minor == 1, f"asked 4.2, served {version}")
    packet = d.receive(7)
    if packet is not None:
        check_frame_values(DataFrame.read_from_buffer(PacketBuffer(packet[4:]), Version(4, 1)), "4.1 frame")
    for r in (b, c, d):
        r.send(9)


if __name__ == "__main__":
    sys.exit(main())
