#!/usr/bin/env python3
"""The objects compiled with AVX define nothing that a file without AVX may also define.

An inline function (or a template instantiation) that two object files both emit is kept once,
from either file: if an AVX file's copy of a function other code also calls were kept, that code
would run AVX instructions on a processor without them. So every function an AVX object defines
with external linkage must be an entry point (named *_avx, called after has_avx()) or belong to
a four-lane instantiation, which only the AVX files make.

usage: check_avx_object.py NM OBJECT...        (the AVX objects, *_avx.cpp, are picked by name)
       check_avx_object.py NM --self-test CXX  (the check must refuse an object that breaks it)
"""
import os
import subprocess
import sys
import tempfile

AVX_SOURCES = ("step_velocities_avx.cpp", "kinematics_avx.cpp")


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


def is_entry(symbol):
    """An odemocap function whose name ends in _avx."""
    name = symbol.split("(", 1)[0]
    return name.startswith("odemocap::") and name.endswith("_avx")


def offenders(nm, obj):
    return [s for s in shared_definitions(nm, obj) if not is_entry(s) and "__vector(4)" not in s]


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
    objects = [o for arg in argv[2:] for o in arg.split(";")
               if any(o.endswith(source + suffix) for source in AVX_SOURCES
                      for suffix in (".o", ".obj"))]
    if len(objects) != len(AVX_SOURCES):
        print("expected an object of each of", AVX_SOURCES, "among the arguments, found", objects)
        return 1
    status = 0
    for obj in objects:
        bad = offenders(nm, obj)
        if bad:
            print(obj, "defines functions other files may also define, compiled with AVX:")
            print("\n".join("  " + s for s in bad))
            status = 1
        else:
            print(obj, "defines", len(shared_definitions(nm, obj)),
                  "shared functions, all its own (*_avx or four-lane vectors)")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
