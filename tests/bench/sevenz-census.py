"""`relicview census` of a solid 7z of many small files against `7zz t` (7-Zip decoding and
checking every file) on the same archive, in one run, the two alternating: the median wall
time of each and their ratio, for one solid LZMA2 block and one solid PPMd block. Census
lists the archive and reads every file once; each solid block should be decoded once.

The files: text of random words (compressible as game scripts and configs are), a few
hundred bytes to a few kilobytes each, in 40 folders.

python3 tests/bench/sevenz-census.py [--files N] [--runs K]
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time

# The release CLI, or another build named by RELICVIEW_BIN (./test.sh's smoke run: the test build's).
BIN = os.environ.get('RELICVIEW_BIN') or os.path.join(os.path.dirname(__file__), '..', '..', 'target', 'release', 'relicview')


def timed(args):
    t = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--files', type=int, default=3000)
    p.add_argument('--runs', type=int, default=5)
    a = p.parse_args()
    root = tempfile.mkdtemp(prefix='relicview-7z-census-bench-')
    tree = os.path.join(root, 'tree')
    rng = random.Random(1)
    words = [''.join(rng.choice('abcdefghij') for _ in range(rng.randint(2, 9))) for _ in range(3000)]
    total = 0
    for i in range(a.files):
        folder = os.path.join(tree, f'D{i % 40:02d}')
        os.makedirs(folder, exist_ok=True)
        text = ' '.join(rng.choice(words) for _ in range(rng.randint(100, 800)))
        total += len(text)
        with open(os.path.join(folder, f'F{i:05d}.TXT'), 'w') as f:
            f.write(text)
    print(f'census of a solid 7z of {a.files} files ({total / 1e6:.1f} MB) against 7zz t, median of {a.runs}, alternating')
    for method in ['LZMA2', 'PPMd']:
        archive = os.path.join(root, f'{method}.7z')
        subprocess.run(['7zz', 'a', '-bd', '-bso0', f'-m0={method}', '-ms=on', archive, '.'], cwd=tree, check=True)
        ours, theirs = [], []
        for _ in range(a.runs):
            theirs.append(timed(['7zz', 't', '-bd', '-bso0', archive]))
            ours.append(timed([BIN, 'census', archive]))
        o, t = statistics.median(ours), statistics.median(theirs)
        print(f'  {method:6} {os.path.getsize(archive) / 1e6:5.1f} MB packed: census {o * 1e3:7.1f} ms, 7zz t {t * 1e3:7.1f} ms; ratio census / 7zz t {o / t:.2f}×')
    shutil.rmtree(root, ignore_errors=True)


if __name__ == '__main__':
    main()
