#!/usr/bin/env python3
"""Writes gpushmem/compat/nvshmem/nvshmem_names.h: NVSHMEM's spelling of every gpushmem name.

NVSHMEM's API is OpenSHMEM's with "nv" in front (nvshmem_int_p, nvshmemx_putmem_warp, NVSHMEM_CMP_EQ,
NVSHMEMX_...), so the mapping is read off gpushmem's own headers rather than written by hand: the host C++
compiler (and nvcc, for the device-only names of CUDA files) preprocesses <shmem.h> and <shmemx.h>, every
identifier that starts with shmem_, shmemx_, SHMEM_ or SHMEMX_ is collected (string literals left out), and
each becomes "#define nv<name> <name>". Names whose NVSHMEM form differs in meaning are left out here and
written by hand in nvshmem_init.h (see EXCLUDED).

Then every name of NVSHMEM's API (tools/nvshmem_api.txt) that is neither mapped nor written by hand in
the compat folder's other headers becomes a macro that stops the build naming it and saying why.

    gen_nvshmem_names.py --out FILE --cxx CXX [--nvcc NVCC] --api nvshmem_api.txt --compat DIR
                         [--list LIST] -I DIR [-I DIR ...]

--list writes every NVSHMEM API name with what became of it ("mapped", "written", "missing"), for the tests.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# gpushmem names whose "nv" spelling is not the same thing in NVSHMEM (written in nvshmem_init.h instead).
EXCLUDED = {
    "shmemx_init_attr": "NVSHMEM's takes (flags, attr); nvshmem_init.h translates",
    "shmemx_init_attr_t": "NVSHMEM's struct differs (mpi_comm plus unique-id arguments)",
    "SHMEMX_INIT_ATTR_INITIALIZER": "goes with shmemx_init_attr_t",
}

# A whole identifier, not a piece of a token pasted in a macro body (shmem_ctx_##N##_p).
NAME = re.compile(r"(?<![A-Za-z0-9_#])((?:shmemx?|SHMEMX?)_[A-Za-z0-9_]*[A-Za-z0-9])(?![A-Za-z0-9_]|\s*##)")
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
CHAR = re.compile(r"'(?:[^'\\\n]|\\.)+'")


def preprocess(command):
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit("gen_nvshmem_names: %s failed:\n%s" % (" ".join(command), run.stderr))
    return run.stdout


def names_in(text):
    text = CHAR.sub("''", STRING.sub('""', text))
    return set(NAME.findall(text))


TYPES = {
    "RMA": "float double char schar short int long longlong uchar ushort uint ulong ulonglong int8 int16 int32 "
    "int64 uint8 uint16 uint32 uint64 size ptrdiff half bfloat16",
    "AMO": "int long longlong uint ulong ulonglong int32 int64 uint32 uint64 size ptrdiff",
    "AMOX": "int long longlong uint ulong ulonglong int32 int64 uint32 uint64 size ptrdiff float double",
    "AMOB": "uint ulong ulonglong int32 int64 uint32 uint64",
    "P2P": "int long longlong uint ulong ulonglong int32 int64 uint32 uint64 size ptrdiff",
    "SIZE": "8 16 32 64 128",
    "RED_BIT": "uchar ushort uint ulong ulonglong int8 int16 int32 int64 uint8 uint16 uint32 uint64 size",
    "RED_MM": "char schar short int long longlong ptrdiff uchar ushort uint ulong ulonglong int8 int16 int32 int64 "
    "uint8 uint16 uint32 uint64 size float double half bfloat16",
    "RED_ARITH": "char schar short int long longlong ptrdiff uchar ushort uint ulong ulonglong int8 int16 int32 "
    "int64 uint8 uint16 uint32 uint64 size float double half bfloat16",
    "WB": "_warp _block",
    "WBS": "_warp _block _on_stream",
}
FIELD = re.compile(r"\{([A-Z0-9_]+)\}")


def expand(pattern):
    m = FIELD.search(pattern)
    if m is None:
        return [pattern]
    out = []
    for value in TYPES[m.group(1)].split():
        out += expand(pattern[: m.start()] + value + pattern[m.end() :])
    return out


def api_names(path):
    names = []
    for line in open(path):
        line = line.split("#", 1)[0]
        for pattern in line.split():
            names += expand(pattern)
    return names


def why_missing(name):
    if "_half_" in name or "_bfloat16_" in name:
        return "the half and bfloat16 types are not in gpushmem's type table"
    if name.endswith("_on_stream"):
        return "no stream-ordered form of it in gpushmem: issue it from a kernel, or call the host form after cudaStreamSynchronize"
    return "not implemented in gpushmem"


def nv(name):
    return "nv" + name if name[0].islower() else "NV" + name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--nvcc")
    ap.add_argument("--list")
    ap.add_argument("--api", required=True)
    ap.add_argument("--compat", required=True, help="folder of the hand-written compat headers")
    ap.add_argument("-I", dest="includes", action="append", default=[])
    args = ap.parse_args()
    incs = ["-I" + d for d in args.includes]
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.cu")
        with open(probe, "w") as f:
            f.write("#include <shmem.h>\n#include <shmemx.h>\n")
        found = names_in(preprocess([args.cxx, "-E", "-dD", "-x", "c++"] + incs + [probe]))
        found |= names_in(preprocess([args.cxx, "-E", "-dD", "-x", "c"] + incs + [probe]))
        cuda = bool(args.nvcc)
        if cuda:
            found |= names_in(preprocess([args.nvcc, "-E", "-Xcompiler", "-dD", "-x", "cu"] + incs + [probe]))
    mapped = sorted(n for n in found if n not in EXCLUDED)
    lines = [
        "/* Generated by tools/gen_nvshmem_names.py from the headers of this gpushmem build%s: NVSHMEM's"
        % (" (with CUDA)" if cuda else " (without CUDA: no device-only names)"),
        "   spelling of every shmem_ / shmemx_ / SHMEM_ / SHMEMX_ name, %d in all. Do not edit; included by" % len(mapped),
        "   <nvshmem.h> of gpushmem/compat/nvshmem. */",
        "#ifndef GPUSHMEM_COMPAT_NVSHMEM_NAMES_H",
        "#define GPUSHMEM_COMPAT_NVSHMEM_NAMES_H",
        "",
    ]
    lines += ["#define %s %s" % (nv(n), n) for n in mapped]

    # The rest of NVSHMEM's API: written by hand in the other compat headers, or missing.
    # Defined there: a macro, a static inline function, or a typedef'd struct (mere mentions do not count).
    written = set()
    for header in sorted(os.listdir(args.compat)):
        if header.endswith(".h") and header != os.path.basename(args.out):
            text = open(os.path.join(args.compat, header)).read()
            written |= set(re.findall(r"#define\s+((?:nvshmemx?|NVSHMEMX?)_\w+)", text))
            written |= set(re.findall(r"static\s+inline\s+[\w\s\*]+?\b(nvshmemx?_\w+)\s*\(", text))
            written |= set(re.findall(r"}\s*(nvshmemx?_\w+)\s*;", text))
    mapped_nv = {nv(n) for n in mapped}
    status = {}
    stronger = []  # nbi forms on a stream, served by the blocking form (its completion is the stronger one)
    for name in api_names(args.api):
        blocking = name.replace("_nbi_on_stream", "_on_stream")
        if name in mapped_nv or name in written:
            status[name] = "mapped" if name in mapped_nv else "written"
        elif blocking != name and blocking in mapped_nv:
            status[name] = "mapped"
            stronger.append((name, blocking[2:]))
        else:
            status[name] = "missing"
    lines += [
        "",
        "/* Non-blocking forms on a stream: the blocking form, which completes no later (NVSHMEM allows it). */",
    ]
    lines += ["#define %s %s" % pair for pair in sorted(stronger)]
    missing = sorted(n for n, st in status.items() if st == "missing")
    lines += [
        "",
        "/* NVSHMEM names (tools/nvshmem_api.txt) with no gpushmem equivalent, %d: using one stops the build. */"
        % len(missing),
    ]
    for name in missing:
        params = "(...)" if name[0].islower() else ""
        lines.append('#define %s%s GPUSHMEMI_NVSHMEM_MISSING(%s, "%s")' % (name, params, name, why_missing(name)))
    lines += ["", "#endif /* GPUSHMEM_COMPAT_NVSHMEM_NAMES_H */", ""]
    text = "\n".join(lines)
    old = open(args.out).read() if os.path.exists(args.out) else None
    if old != text:  # unchanged: keep the time stamp, so nothing rebuilds
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            f.write(text)
    if args.list:
        with open(args.list, "w") as f:
            f.write("".join("%s %s\n" % (n, status[n]) for n in sorted(status)))


if __name__ == "__main__":
    main()
