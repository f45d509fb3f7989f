"""What both interoperability tests share: pass/fail counting with the closing line ctest and
CI read, a free port, and odemocap serve started on the analytic capture and stopped."""
import contextlib
import os
import select
import socket
import subprocess
import time

import capture

failures = []
passes = 0


def check(ok, what):
    global passes
    if ok:
        passes += 1
    else:
        failures.append(what)
        print("FAIL:", what, flush=True)


def free_port(kind):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_until_listening(server, timeout=60.0):
    """Until `odemocap serve` says it waits for a client (its sockets are bound by then): a
    fixed pause was too short for a server built with the sanitizers on a busy machine, and a
    client's one connection request went unanswered. Read from the pipe unbuffered, so that no
    line waits in a buffer that select() does not see."""
    said = b""
    deadline = time.monotonic() + timeout
    while b"waiting for a client" not in said:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([server.stdout], [], [], max(left, 0.0))
        chunk = os.read(server.stdout.fileno(), 4096) if ready else b""
        if not chunk:
            raise RuntimeError("odemocap serve did not start listening within %g s; it said: %r"
                               % (timeout, said.decode(errors="replace")))
        said += chunk


@contextlib.contextmanager
def serving(odemocap, scratch, protocol, port, options=()):
    """`odemocap serve` of the analytic capture with its defaults but the port (tests run side by
    side) and looping."""
    os.makedirs(scratch, exist_ok=True)
    path = os.path.join(scratch, "analytic.csv")
    capture.write_csv(path)
    server = subprocess.Popen([odemocap, "serve", path, "--protocol", protocol, "--port", str(port),
                               "--loop", *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_until_listening(server)
        yield
    finally:
        server.terminate()
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()


def finish():
    print(f"{passes} passed, {len(failures)} failed")
    return 1 if failures else 0
