"""`relicview export --all` against exporting each file with `relicview export` on its own,
in one run: wall time (best of runs) and the peak resident memory of each process.

The archive: the demo (models, worlds, field models, pictures) and N generated terrain
models of about MB megabytes each (`relicview demo --large`).

python3 tests/bench/export-all.py [--models N] [--mb MB] [--runs K]
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

# The release CLI, or another build named by RELICVIEW_BIN (./test.sh's smoke run: the test build's).
BIN = os.environ.get('RELICVIEW_BIN') or os.path.join(os.path.dirname(__file__), '..', '..', 'target', 'release', 'relicview')


def measured(args):
    """Run `args` in a child of a fresh Python, which reports the wall time and the child's
    peak resident set (ru_maxrss of its waited children, KiB)."""
    probe = (
        "import resource, subprocess, sys, time, json\n"
        "t = time.perf_counter()\n"
        "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode\n"
        "print(json.dumps({'s': time.perf_counter() - t, 'kib': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, 'code': code}))\n"
    )
    out = subprocess.run([sys.executable, '-c', probe, *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--models', type=int, default=4)
    p.add_argument('--mb', type=float, default=20)
    p.add_argument('--runs', type=int, default=3)
    a = p.parse_args()
    root = tempfile.mkdtemp(prefix='relicview-export-all-bench-')
    game = os.path.join(root, 'GAME')
    subprocess.run([BIN, 'demo', game], stdout=subprocess.DEVNULL, check=True)
    for k in range(a.models):
        d = os.path.join(root, f'big{k}')
        subprocess.run([BIN, 'demo', d, '--large', str(a.mb * (1 + k * 0.1))], stdout=subprocess.DEVNULL, check=True)
        os.makedirs(os.path.join(game, 'LARGE'), exist_ok=True)
        shutil.copy(os.path.join(d, 'LARGE.BGF'), os.path.join(game, 'LARGE', f'TERRAIN{k}.BGF'))
    out = os.path.join(root, 'OUT')
    # The files export --all writes a .glb for: the single exports' list.
    subprocess.run([BIN, 'export', '--all', game, '-o', out, '--json'], stdout=subprocess.DEVNULL)
    report = json.load(open(os.path.join(out, 'report.json')))
    scenes = sorted({w['path'] for w in report['written'] if w['file'].endswith('.glb')})
    size = sum(os.path.getsize(os.path.join(game, s)) for s in scenes)
    best_all, peak_all = None, 0
    for _ in range(a.runs):
        shutil.rmtree(out, ignore_errors=True)
        r = measured([BIN, 'export', '--all', game, '-o', out])
        best_all = r['s'] if best_all is None else min(best_all, r['s'])
        peak_all = max(peak_all, r['kib'])
    best_sum, peak_single, largest = None, 0, None
    single = os.path.join(root, 'single.glb')
    for _ in range(a.runs):
        total = 0.0
        for s in scenes:
            r = measured([BIN, 'export', os.path.join(game, s), '--root', game, '-o', single])
            total += r['s']
            if r['kib'] > peak_single:
                peak_single, largest = r['kib'], s
        best_sum = total if best_sum is None else min(best_sum, total)
    print(f'export --all of {len(report["written"])} outputs from {report["files"]} files ({len(scenes)} scenes, {size / 1e6:.1f} MB of them), {os.cpu_count()} cores, best of {a.runs}')
    print(f'  export --all                     {best_all * 1e3:9.1f} ms   peak {peak_all / 1024:7.1f} MiB')
    print(f'  the {len(scenes)} single exports, summed  {best_sum * 1e3:9.1f} ms   peak {peak_single / 1024:7.1f} MiB (the largest: {largest})')
    print(f'  ratio: time {best_all / best_sum:.2f}× the sum of single exports; peak memory {peak_all / peak_single:.2f}× the largest single export')
    shutil.rmtree(root, ignore_errors=True)


if __name__ == '__main__':
    main()
