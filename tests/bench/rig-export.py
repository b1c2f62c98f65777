"""`relicview export` of the real FF7 field files with `--rig skin` against `--rig nodes`, in
one run: wall time (median of alternating runs) and the .glb sizes, for the model the viewer
shows first and for every model at once (`--lods all`).

The files: the field models and characters in ../shared/testdata (FIELD.BIN and FIELD.TDB
beside them, so the game's lighting and faces go out as the viewer shows them).

python3 tests/bench/rig-export.py [--runs K]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The release CLI, or another build named by RELICVIEW_BIN (./test.sh's smoke run: the test build's).
BIN = os.environ.get('RELICVIEW_BIN') or os.path.join(HERE, '..', '..', 'target', 'release', 'relicview')
SHARED = os.path.join(HERE, '..', '..', '..', 'shared', 'testdata')


def folder():
    """The real files under the names the archive knows them by, in a temp folder."""
    d = tempfile.mkdtemp(prefix='relicview-rig-bench-')
    for name in os.listdir(os.path.join(SHARED, 'ff7')):
        shutil.copy(os.path.join(SHARED, 'ff7', name), os.path.join(d, name.replace('_u.BSX', '.BSX').removesuffix('_u')))
    for name in ('CLOUD.BCX', 'BALLET.BCX'):
        shutil.copy(os.path.join(SHARED, 'ff7-disc', name), os.path.join(d, name))
    return d


def export(d, name, rig, lods, out):
    t = time.perf_counter()
    subprocess.run([BIN, 'export', os.path.join(d, name), '--root', d, '--rig', rig, '--lods', lods, '-o', out], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--runs', type=int, default=9)
    a = p.parse_args()
    d = folder()
    out = tempfile.mkdtemp(prefix='relicview-rig-bench-out-')
    files = sorted(n for n in os.listdir(d) if n.endswith(('.BSX', '.BCX')))
    print(f'# export of {len(files)} real FF7 files, --rig skin against --rig nodes, median of {a.runs} alternating runs')
    print('| file | models | skin .glb | nodes .glb | skin ms | nodes ms | ratio skin / nodes |')
    print('| --- | --- | --- | --- | --- | --- | --- |')
    totals = {'skin': 0.0, 'nodes': 0.0}
    for name in files:
        for lods in ('shown', 'all'):
            times = {'skin': [], 'nodes': []}
            for k in range(a.runs):
                # Alternating, the first of each pair changing sides, so neither gets the warm cache.
                for rig in (('skin', 'nodes') if k % 2 == 0 else ('nodes', 'skin')):
                    times[rig].append(export(d, name, rig, lods, os.path.join(out, f'{name}.{lods}.{rig}.glb')))
            med = {r: statistics.median(v) for r, v in times.items()}
            for r in med:
                totals[r] += med[r]
            size = {r: os.path.getsize(os.path.join(out, f'{name}.{lods}.{r}.glb')) for r in med}
            which = 'the first' if lods == 'shown' else 'every one'
            print(f"| {name} | {which} | {size['skin']:,} | {size['nodes']:,} | {med['skin'] * 1000:.1f} | {med['nodes'] * 1000:.1f} | {med['skin'] / med['nodes']:.2f} |")
    print(f"ratio skin / nodes, all files: {totals['skin'] / totals['nodes']:.3f} ({totals['skin'] * 1000:.0f} against {totals['nodes'] * 1000:.0f} ms)")
    shutil.rmtree(d)
    shutil.rmtree(out)


if __name__ == '__main__':
    main()
