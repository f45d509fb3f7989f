#!/usr/bin/env python3
"""Every relative link in the repository's Markdown files resolves: the file exists, and a
#fragment names a heading of the file it points to (GitHub's anchors: lower case, spaces to
hyphens, punctuation dropped). Links to the web are not followed (no network).

usage: check_links.py REPOSITORY_ROOT [FILE...]   (FILEs: check only these, whatever their name)
"""
import os
import re
import sys

SKIP_DIRS = {".git", "build", "node_modules"}
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*```")


def anchors(path):
    out = set()
    seen = {}
    in_code = False
    for line in open(path, encoding="utf-8"):
        if FENCE.match(line):
            in_code = not in_code
            continue
        if in_code or not line.startswith("#"):
            continue
        title = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links(path):
    in_code = False
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            continue
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            yield number, target


def main():
    root = os.path.abspath(sys.argv[1])
    files, broken, checked = [os.path.abspath(f) for f in sys.argv[2:]], [], 0
    for directory, subdirs, names in [] if files else os.walk(root):
        subdirs[:] = [d for d in subdirs if d not in SKIP_DIRS and not d.startswith("build")]
        files += [os.path.join(directory, n) for n in names if n.endswith(".md")]
    for md in sorted(files):
        for number, target in links(md):
            if re.match(r"^[a-z]+:", target):
                continue  # http(s), mailto: not followed
            checked += 1
            path, _, fragment = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
            where = f"{os.path.relpath(md, root)}:{number}: {target}"
            if not os.path.exists(resolved):
                broken.append(f"{where}: no such file")
            elif fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
                broken.append(f"{where}: no heading '{fragment}' in {os.path.relpath(resolved, root)}")
    print(f"{checked} relative links in {len(files)} Markdown files")
    for b in broken:
        print("broken:", b)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
