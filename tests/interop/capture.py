"""An analytic rigid-body capture both the server and the checks read: three bodies moving and
turning at known rates, 120 Hz, written as the generic rigid-body CSV (metres, Z up)."""
import math

RATE = 120.0
FRAMES = 360  # 3 s
BODIES = ("wand", "hand", "tool")


def pose(body, i):
    """Position (m) and quaternion (w, x, y, z) of `body` at frame i, Z up."""
    t = i / RATE
    k = BODIES.index(body) + 1
    p = (0.1 * k + 0.2 * t, 0.3 - 0.05 * k * t, 1.0 + 0.1 * math.sin(2.0 * t + k))
    # A turn about the axis (1, k, 2) / |.| at k rad/s.
    n = math.sqrt(1 + k * k + 4)
    half = 0.5 * k * t
    s = math.sin(half) / n
    return p, (math.cos(half), s, k * s, 2 * s)


def write_csv(path):
    with open(path, "w") as out:
        names = []
        for b in BODIES:
            names += [f"{b}.{c}" for c in ("x", "y", "z", "qw", "qx", "qy", "qz")]
        out.write("time," + ",".join(names) + "\n")
        for i in range(FRAMES):
            cells = [repr(i / RATE)]
            for b in BODIES:
                p, q = pose(b, i)
                cells += [repr(v) for v in p + q]
            out.write(",".join(cells) + "\n")


def z_up_to_y_up(p, q):
    """Motive's default frame (Y up) from Z up, by the shortest turn (-90 degrees about X):
    (x, y, z) -> (x, z, -y); the quaternion turned the same way (q' = C q)."""
    x, y, z = p
    c = (math.sqrt(0.5), -math.sqrt(0.5), 0.0, 0.0)
    return (x, z, -y), qmul(c, q)


def qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw)


def angle_between(a, b):
    """The angle (rad) of the rotation between quaternions a and b (either sign; a sent as
    floats need not be of unit length)."""
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(x * x for x in b))
    d = min(1.0, abs(sum(x * y for x, y in zip(a, b))) / (na * nb))
    return 2.0 * math.acos(d)
