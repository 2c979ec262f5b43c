#!/usr/bin/env python3
"""Fails if a source file includes a layer above its own, or a private
header of another layer (the table: scripts/layers.txt, docs/DESIGN.md).

check_layers.py [TREE]: TREE (default: this checkout) holds scripts/layers.txt
and the roots it names; tests/data/layers/ is a tree that must fail."""
import pathlib
import re
import sys

top = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent).resolve()
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_layers():
    layers = []  # (root, stage, public headers), bottom up
    for line in (top / "scripts/layers.txt").read_text().splitlines():
        line = line.split("#", 1)[0].split()
        if line:
            root, stage = line[0].split("/")
            layers.append((root, stage, set(line[1:])))
    return layers


def main():
    layers = read_layers()
    rank = {(root, stage): i for i, (root, stage, _) in enumerate(layers)}
    public = {(root, stage): pub for root, stage, pub in layers}
    roots = sorted({root for root, _, _ in layers})
    errors, checked = [], 0
    for root in roots:
        for path in sorted((top / root).rglob("*")):
            if path.suffix not in (".h", ".cpp", ".c"):
                continue
            rel = path.relative_to(top / root)
            if len(rel.parts) < 2:
                errors.append(f"{root}/{rel}: a source file at the top of {root}/ belongs in a layer")
                continue
            own = (root, rel.parts[0])
            if own not in rank:
                if rel.parts[0] == "workload":  # its own program: libc only
                    continue
                errors.append(f"{root}/{rel}: {rel.parts[0]}/ is not a layer in scripts/layers.txt")
                continue
            checked += 1
            for name in include.findall(path.read_text(errors="replace")):
                parts = pathlib.PurePosixPath(name).parts
                target = next(((r, parts[0]) for r in roots
                               if len(parts) > 1 and (r, parts[0]) in rank
                               and (top / r / name).exists()), None)
                if target is None:
                    if any((top / r / name).exists() or (path.parent / name).exists()
                           for r in roots):
                        errors.append(f"{root}/{rel}: includes \"{name}\" by a relative path; "
                                      "name it from its layer (\"stage/file.h\")")
                    continue  # a generated or a bpf/ header
                if rank[target] > rank[own]:
                    errors.append(f"{root}/{rel}: includes \"{name}\" of {target[0]}/{target[1]}, "
                                  f"a layer above {root}/{own[1]}")
                elif target != own and "/".join(parts[1:]) not in public[target]:
                    errors.append(f"{root}/{rel}: includes \"{name}\", private to "
                                  f"{target[0]}/{target[1]}")
    for e in errors:
        print(e)
    print(f"layers: {checked} files checked, {len(errors)} violations")
    return 1 if errors or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
