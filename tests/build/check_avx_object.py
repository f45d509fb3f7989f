#!/usr/bin/env python3
"""The object compiled with AVX defines nothing that a file without AVX may also define.

An inline function (or a template instantiation) that two object files both emit is kept once,
from either file: if the AVX file's copy of a function other code also calls were kept, that code
would run AVX instructions on a processor without them. So every symbol the AVX object defines
with external linkage must be its entry point or take four-lane vectors, which only it uses.

usage: check_avx_object.py NM OBJECT...        (the AVX object is picked from the list by name)
       check_avx_object.py NM --self-test CXX  (the check must refuse an object that breaks it)
"""
import os
import subprocess
import sys
import tempfile

ENTRY = "odemocap::detail::step_four_avx("
AVX_SOURCE = "step_velocities_avx.cpp"


def shared_definitions(nm, obj):
    """Functions `obj` defines that the linker may merge with another file's (or export): code
    (T), weak code (W) and indirect functions (i). Data, such as the type information a
    sanitizer adds (V), holds no instruction."""
    out = subprocess.run([nm, "-C", "--defined-only", obj], check=True, capture_output=True,
                         text=True).stdout
    found = []
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in ("T", "W", "i"):
            found.append(parts[2])
    return found


def offenders(nm, obj):
    return [s for s in shared_definitions(nm, obj) if not s.startswith(ENTRY)
            and "__vector(4)" not in s]


def self_test(nm, cxx):
    # An inline function on plain doubles, not inlined at -O0: emitted as a weak symbol.
    source = "inline double twice(double x) { return 2 * x; }\ndouble use(double x) { return twice(x); }\n"
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "bad.cpp")
        obj = os.path.join(d, "bad.o")
        with open(src, "w") as f:
            f.write(source)
        subprocess.run([cxx, "-O0", "-mavx", "-c", src, "-o", obj], check=True)
        bad = offenders(nm, obj)
    if not any(s.startswith("twice(") for s in bad):
        print("the check let an AVX copy of an inline function through:", bad)
        return 1
    print("the check refuses an AVX object that defines", bad)
    return 0


def main(argv):
    if len(argv) == 4 and argv[2] == "--self-test":
        return self_test(argv[1], argv[3])
    nm = argv[1]
    objects = [o for arg in argv[2:] for o in arg.split(";") if o.endswith(AVX_SOURCE + ".o")
               or o.endswith(AVX_SOURCE + ".obj")]
    if len(objects) != 1:
        print("expected one object of", AVX_SOURCE, "among the arguments, found", objects)
        return 1
    bad = offenders(nm, objects[0])
    if bad:
        print(objects[0], "defines symbols other files may also define, compiled with AVX:")
        print("\n".join("  " + s for s in bad))
        return 1
    print(objects[0], "defines", len(shared_definitions(nm, objects[0])),
          "shared symbols, all its own (step_four_avx or four-lane vectors)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
