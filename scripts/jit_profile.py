#!/usr/bin/env python3
"""Where a running process spends its time inside SwiftShader's JIT-compiled kernels.

Usage: python3 scripts/jit_profile.py PID [SECONDS] [--out DIR]

Samples PID with `perf record -e cpu-clock` (no hardware counters needed) for SECONDS (default 8),
copies every executable `memfd:swiftshader_jit` mapping out of /proc/PID/mem while the process
still runs, disassembles each with objdump, and prints per mapping (one per compiled pipeline
that ran): its share of the samples, the share per 8 KiB of code (a loop body shows as a run of
evenly hot blocks, an epilogue as an island after it) and the hottest instructions. perf gives
no symbols for JIT code, hence the dump. Run the kernel in a loop in PID for longer than SECONDS
(see docs/speed.md, "What the JIT makes of a kernel"). Needs perf, objdump and permission to read
the process's memory (same user, ptrace allowed).
"""
import argparse
import collections
import os
import re
import subprocess
import sys


def jit_maps(pid):
    """(start, end) of each executable JIT mapping of pid."""
    out = []
    with open(f'/proc/{pid}/maps') as f:
        for line in f:
            if 'swiftshader_jit' in line and ' r-xp ' in line:
                a, b = (int(x, 16) for x in line.split()[0].split('-'))
                out.append((a, b))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('pid', type=int)
    ap.add_argument('seconds', type=float, nargs='?', default=8)
    ap.add_argument('--out', default='/tmp/jit-profile')
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    data = os.path.join(args.out, 'perf.data')
    subprocess.run(['perf', 'record', '-q', '-e', 'cpu-clock', '-F', '2000', '-p', str(args.pid), '-o', data,
                    '--', 'sleep', str(args.seconds)], check=True)
    maps = jit_maps(args.pid)
    if not maps:
        sys.exit(f'jit_profile: process {args.pid} has no swiftshader_jit mappings (is it running kernels on SwiftShader?)')
    blobs = []
    with open(f'/proc/{args.pid}/mem', 'rb') as mem:
        for a, b in maps:
            mem.seek(a)
            path = os.path.join(args.out, f'jit_{a:x}.bin')
            with open(path, 'wb') as f:
                f.write(mem.read(b - a))
            blobs.append((a, b, path))
    script = subprocess.run(['perf', 'script', '-i', data, '-F', 'ip'], capture_output=True, text=True, check=True).stdout
    ips = [int(x, 16) for x in script.split() if x]
    print(f'{len(ips)} samples; {len(blobs)} JIT mappings (dumped to {args.out})')
    for a, b, path in sorted(blobs):
        hot = collections.Counter(ip - a for ip in ips if a <= ip < b)
        n = sum(hot.values())
        if n == 0:
            continue
        print(f'\n== {path}: {n} samples ({100 * n / len(ips):.1f} %), {b - a} bytes of code')
        blocks = collections.Counter()
        for off, c in hot.items():
            blocks[off // 8192] += c
        print('  per 8 KiB: ' + ' '.join(f'{k * 8}K:{100 * v / n:.0f}' for k, v in sorted(blocks.items()) if v / n >= 0.005))
        asm = subprocess.run(['objdump', '-D', '-b', 'binary', '-m', 'i386:x86-64', f'--adjust-vma={a:#x}', path],
                             capture_output=True, text=True, check=True).stdout
        text = {}
        for line in asm.splitlines():
            m = re.match(r'\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(.*)', line)
            if m:
                text[int(m.group(1), 16) - a] = m.group(2).strip()
        with open(path + '.asm', 'w') as f:
            f.write(asm)
        for off, c in hot.most_common(8):
            print(f'  {100 * c / n:5.1f} %  +{off:#07x}  {text.get(off, "(not an instruction start)")}')


if __name__ == '__main__':
    main()
