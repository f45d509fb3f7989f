"""What both interoperability tests share: pass/fail counting with the closing line ctest and
CI read, a free port, and odemocap serve started on the analytic capture and stopped."""
import contextlib
import os
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


@contextlib.contextmanager
def serving(odemocap, scratch, protocol, port, options=()):
    """`odemocap serve` of the analytic capture with its defaults but the port (tests run side by
    side) and looping."""
    os.makedirs(scratch, exist_ok=True)
    path = os.path.join(scratch, "analytic.csv")
    capture.write_csv(path)
    server = subprocess.Popen([odemocap, "serve", path, "--protocol", protocol, "--port", str(port),
                               "--loop", *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    try:
        time.sleep(0.5)
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
