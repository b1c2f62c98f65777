#!/usr/bin/env bash
# Fuzz every parser target for a while: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET…]
# Runs on the stable toolchain without a sanitizer (cargo-fuzz's ASan needs nightly);
# panics, hangs (-timeout) and runaway allocations (-rss_limit_mb) are still caught.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-300}
shift || true
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
# The seeds' scratch folders, removed when the script ends however it ends.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for target in ${@:-$(cargo fuzz list)}; do
  mkdir -p "corpus/$target"
  if [ -z "$(ls -A "corpus/$target")" ] && { [ "$target" = biz2 ] || [ "$target" = open ]; }; then
    # Seed with the demo archive: for biz2 the magic stripped (the target prepends it), for
    # open with the file's extension (".BGF.", fuzz_targets/common/named.rs).
    seeds=$(mktemp -d -p "$scratch")
    cargo run -q --manifest-path ../Cargo.toml -- demo "$seeds" >/dev/null
    i=0
    for f in $(find "$seeds" -type f); do
      i=$((i+1))
      if [ "$target" = biz2 ]; then tail -c +9 "$f" > "corpus/biz2/demo$i"; continue; fi
      { printf '.%s.' "${f##*.}"; cat "$f"; } > "corpus/open/demo$i"
    done
  fi
  if [ -z "$(ls -A "corpus/$target")" ] && [ "$target" = special ]; then
    # Seed with the words the notes name, in strings of several words and mixed case.
    printf ' dz_hip DZ_LArm  BLINK ' > corpus/special/zones
    printf 'GEOMETRIZE 0x8000001a\tPUNCH wobble' > corpus/special/geometrize
    printf ' SCROLL 0 0 0.5 -1 ADDITIVE_LODS WIREFRAME dz_\377odd' > corpus/special/scroll
  fi
  if [ -z "$(ls -A "corpus/$target")" ] && [ "$target" = export ]; then
    # Seed with the demo's files under 60 KB: the extension (".BGF."), names to claim (a way
    # up, two alike but for case), a zero byte, the file.
    seeds=$(mktemp -d -p "$scratch")
    cargo run -q --manifest-path ../Cargo.toml -- demo "$seeds" >/dev/null
    for f in $(find "$seeds" -type f -size -60k); do
      { printf '.%s.' "${f##*.}"; printf '../a/B.png\nA/b.png\nC:/x\000'; cat "$f"; } > "corpus/export/$(basename "$f")"
    done
  fi
  if [ -z "$(ls -A "corpus/$target")" ] && [ "$target" = diff ]; then
    # Seed with pairs of the demo's files of one kind (under 64 KB): a file and itself, a
    # file and the next of its kind; the extension (".BGF."), A's length (u16), A, B.
    seeds=$(mktemp -d -p "$scratch")
    cargo run -q --manifest-path ../Cargo.toml -- demo "$seeds" >/dev/null
    le16() { printf "\\$(printf '%03o' $(($1 & 255)))\\$(printf '%03o' $(($1 >> 8)))"; }
    for ext in $(find "$seeds" -type f | sed 's/.*\.//' | sort -u); do
      prev=""
      for f in $(find "$seeds" -type f -name "*.$ext" -size -60k | sort); do
        { printf '.%s.' "$ext"; le16 "$(stat -c %s "$f")"; cat "$f" "$f"; } > "corpus/diff/same-$(basename "$f")"
        if [ -n "$prev" ]; then { printf '.%s.' "$ext"; le16 "$(stat -c %s "$prev")"; cat "$prev" "$f"; } > "corpus/diff/pair-$(basename "$f")"; fi
        prev=$f
      done
    done
  fi
  if [ -z "$(ls -A "corpus/$target")" ] && [ "$target" = bsx ]; then
    # Seed with the demo's field: u16 BSX length, u16 BCX length, PARTY.BSX, CLOUD.BCX, FIELD.TDB.
    seeds=$(mktemp -d -p "$scratch")
    cargo run -q --manifest-path ../Cargo.toml -- demo "$seeds" >/dev/null
    field="$seeds/DEMO/FIELD"
    le16() { printf "\\$(printf '%03o' $(($1 & 255)))\\$(printf '%03o' $(($1 >> 8)))"; }
    { le16 "$(stat -c %s "$field/PARTY.BSX")"; le16 "$(stat -c %s "$field/CLOUD.BCX")"; cat "$field/PARTY.BSX" "$field/CLOUD.BCX" "$field/FIELD.TDB"; } > corpus/bsx/party
    { le16 "$(stat -c %s "$field/ROBOT.BSX")"; le16 0; cat "$field/ROBOT.BSX"; } > corpus/bsx/robot
  fi
  if [ -z "$(ls -A "corpus/$target")" ] && [ "$target" = field_bin ]; then
    # Seeds: a byte picking the mode, then (even) a file as stored: the disc's header before
    # a gzip stream of the module's start, and that stream alone; (odd) bytes XORed over the
    # real module's tables.
    python3 -c "
import gzip, struct, sys
m = open(sys.argv[1], 'rb').read()
z = gzip.compress(m[:60000], mtime=0)
open('corpus/field_bin/disc', 'wb').write(b'\\x00' + struct.pack('<II', len(m), 0) + z)
open('corpus/field_bin/gzip', 'wb').write(b'\\x02' + z)
open('corpus/field_bin/patch', 'wb').write(b'\\x01' + bytes(range(1, 64)))" ../../shared/testdata/ff7/FIELD.BIN_u
  fi
  if [ -z "$(ls -A "corpus/$target")" ] && [ "$target" = field_dat ]; then
    # Seed with the three real fields as the disc stores them.
    for f in ../../shared/testdata/ff7-disc/*.DAT; do cp "$f" "corpus/field_dat/$(basename "$f")"; done
  fi
  if [ -z "$(ls -A "corpus/$target")" ] && [ "$target" = mim ]; then
    # Seed with the three real fields' pictures as the disc stores them.
    for f in ../../shared/testdata/ff7-disc/*.MIM; do cp "$f" "corpus/mim/$(basename "$f")"; done
  fi
  if [ -z "$(ls -A "corpus/$target")" ] && [ "$target" = link ]; then
    # Seed with links as the page writes them and as people type them.
    printf '#archive=archive.json&path=DEMO%%2FVIDEO%%2FHEXPOD.BGF&cam=1.5%%2C-2%%2C3%%2C0%%2C0%%2C0%%2C45&lod=1&chunk=3&t=0.5&paused=1' > corpus/link/page
    printf 'path=A&compare=B&cmode=split&split=0.4&row=12&hide=doors,dz_larm&measure=1,2,3,4,5,6&bg=checker&light=none&blink=0' > corpus/link/typed
  fi
  if [ -z "$(ls -A "corpus/$target")" ] && [ "$target" = hosted_index ]; then
    # Seed with the index `relicview index` writes for the demo folder and a zip of it
    # (Python's zipfile), and the listing `relicview serve` gives.
    seeds=$(mktemp -d -p "$scratch")
    cargo run -q --manifest-path ../Cargo.toml -- demo "$seeds" >/dev/null
    python3 -c "
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1] + '/GAME.zip', 'w', zipfile.ZIP_DEFLATED) as z:
  for d, _, fs in os.walk(sys.argv[1] + '/DEMO'):
    for f in fs: z.write(os.path.join(d, f), os.path.relpath(os.path.join(d, f), sys.argv[1]))" "$seeds"
    cargo run -q --manifest-path ../Cargo.toml -- index "$seeds" >/dev/null
    cp "$seeds/index.json" corpus/hosted_index/published
    printf '{"root":"R","files":[{"path":"A.BGF","size":3,"kind":"biz2-geometry"}]}' > corpus/hosted_index/served
  fi
  case "$target" in zip | iso | raw_disc | cue | chd)
    if [ -z "$(ls -A "corpus/$target")" ]; then
      # Seeds made by the real tools (Python's zipfile, xorriso, chdman), after the 8 bytes
      # that pick a range to stream: a zip, an ISO from its volume descriptors on (the
      # target adds the system area), its first sectors as raw MODE2 (after a mode byte), a
      # cue sheet, and chdman's CD and raw images of that ISO.
      seeds=$(mktemp -d -p "$scratch")
      mkdir -p "$seeds/tree/FIELD" && printf 'hello\r\n' > "$seeds/tree/README.TXT" && head -c 3000 /dev/urandom > "$seeds/tree/FIELD/A.BSX"
      range='\000\020\000\000\000\000\001\000'
      case "$target" in
      zip)
        python3 -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED); z.write(sys.argv[2], 'FIELD/A.BSX'); z.writestr('B.TXT', b'b' * 100); z.close()" "$seeds/a.zip" "$seeds/tree/FIELD/A.BSX"
        { printf "$range"; cat "$seeds/a.zip"; } > corpus/zip/zip ;;
      iso)
        xorriso -as mkisofs -quiet -o "$seeds/a.iso" "$seeds/tree"
        { printf "$range"; dd if="$seeds/a.iso" bs=2048 skip=16 count=29 status=none; } > corpus/iso/iso ;;
      raw_disc | chd)
        xorriso -as mkisofs -quiet -o "$seeds/a.iso" "$seeds/tree"
        python3 -c "
import sys
iso = open(sys.argv[1], 'rb').read()
out = bytearray()
for i in range(0, len(iso), 2048):
    f = i // 2048 + 150
    out += bytes([0] + [255] * 10 + [0]) + bytes([f // 4500 // 10 * 16 + f // 4500 % 10, f // 75 % 60 // 10 * 16 + f // 75 % 60 % 10, f % 75 // 10 * 16 + f % 75 % 10, 2]) + bytes([0, 0, 8, 0] * 2) + iso[i:i + 2048] + bytes(280)
open(sys.argv[2], 'wb').write(out)" "$seeds/a.iso" "$seeds/a.bin"
        if [ "$target" = raw_disc ]; then
          { printf "\000$range"; dd if="$seeds/a.bin" bs=2352 count=25 status=none; } > corpus/raw_disc/mode2
        else
          printf 'FILE "a.bin" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n' > "$seeds/a.cue"
          chdman createcd -i "$seeds/a.cue" -o "$seeds/cd.chd" >/dev/null
          chdman createraw -i "$seeds/a.iso" -o "$seeds/raw.chd" -hs 8192 -us 2048 -c zlib >/dev/null
          { printf "$range"; cat "$seeds/cd.chd"; } > corpus/chd/cd
          { printf "$range"; cat "$seeds/raw.chd"; } > corpus/chd/raw
        fi ;;
      cue) printf 'FILE "A.BIN" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:02:00\n' > corpus/cue/cue ;;
      esac
    fi ;;
  esac
  if [ "$target" = iso ] && [ ! -e corpus/iso/multi-extent ]; then
    # xorriso's image of A.BIN, B.BIN, C.TXT at level 3, A.BIN made the first of two extents
    # as ECMA-119 writes one (bit 7 of its flags; B.BIN's record renamed A.BIN), as
    # tests/other_tools.rs does.
    seeds=$(mktemp -d -p "$scratch")
    mkdir -p "$seeds/tree" && head -c 5000 /dev/urandom > "$seeds/tree/A.BIN" && head -c 3000 /dev/urandom > "$seeds/tree/B.BIN" && printf 'rest' > "$seeds/tree/C.TXT"
    xorriso -as mkisofs -quiet -iso-level 3 -o "$seeds/a.iso" "$seeds/tree"
    python3 -c "
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
a = b.index(b'A.BIN;1') - 33
r = b.index(b'B.BIN;1') - 33
b[a + 25] |= 0x80
b[r + 33:r + 40] = b'A.BIN;1'
open(sys.argv[2], 'wb').write(bytes(b[16 * 2048:44 * 2048]))" "$seeds/a.iso" "$seeds/joined"
    { printf '\000\020\000\000\000\000\001\000'; cat "$seeds/joined"; } > corpus/iso/multi-extent
  fi
  if [ "$target" = hosted ] && [ -z "$(ls -A corpus/hosted)" ]; then
    # Seeds made by the real tools after the 20 bytes that pick the layout (the first byte:
    # 0 zip, 1 ISO, 4 CHD) and a hostile row: a zip, an ISO without padding, chdman's raw CHD.
    seeds=$(mktemp -d -p "$scratch")
    mkdir -p "$seeds/tree/FIELD" && printf 'hello\r\n' > "$seeds/tree/README.TXT" && head -c 3000 /dev/urandom > "$seeds/tree/FIELD/A.BSX"
    row='\000\000\001\000\000\000\000\020\000\000\000\200\000\000\000\020\000\000\000\000'
    python3 -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED); z.write(sys.argv[2], 'FIELD/A.BSX'); z.writestr('B.TXT', b'b' * 100); z.close()" "$seeds/a.zip" "$seeds/tree/FIELD/A.BSX"
    xorriso -as mkisofs -quiet -no-pad -o "$seeds/a.iso" "$seeds/tree"
    chdman createraw -i "$seeds/a.iso" -o "$seeds/raw.chd" -hs 8192 -us 2048 -c zlib >/dev/null
    { printf "$row"; cat "$seeds/a.zip"; } > corpus/hosted/zip
    { printf '\001'; printf "$row" | tail -c 19; cat "$seeds/a.iso"; } > corpus/hosted/iso
    { printf '\004'; printf "$row" | tail -c 19; cat "$seeds/raw.chd"; } > corpus/hosted/chd
  fi
  if { [ "$target" = sevenz ] || [ "$target" = zip_end ]; } && [ -z "$(ls -A "corpus/$target")" ]; then
    # 7-Zip's own archives (solid LZMA2, PPMd, BZip2 apart, BCJ + LZMA) and zips (Deflate64,
    # PPMd), after the 8 bytes that pick a range (and for zip_end a prefix length byte).
    seeds=$(mktemp -d -p "$scratch")
    mkdir -p "$seeds/tree/FIELD" && printf 'hello\r\n' > "$seeds/tree/README.TXT" && head -c 3000 /dev/urandom > "$seeds/tree/FIELD/A.BSX"
    range='\000\020\000\000\000\000\001\000'
    here=$PWD
    if [ "$target" = sevenz ]; then
      for m in "-m0=LZMA2 -ms=on" "-m0=PPMd -ms=on" "-m0=BZip2 -ms=off" "-m0=BCJ -m1=LZMA -ms=on"; do
        (cd "$seeds/tree" && 7zz a -bso0 -bsp0 -t7z $m -r "$seeds/a.7z" . && { printf "$range"; cat "$seeds/a.7z"; } > "$here/corpus/sevenz/$(echo "$m" | tr -dc 'A-Za-z0-9')" && rm "$seeds/a.7z")
      done
    else
      for m in Deflate64 PPMd; do
        (cd "$seeds/tree" && 7zz a -bso0 -bsp0 -tzip -mm=$m -r "$seeds/a.zip" . && { printf "$range\003"; cat "$seeds/a.zip"; } > "$here/corpus/zip_end/$m" && rm "$seeds/a.zip")
      done
    fi
  fi
  if [ "$target" = sevenz ] && [ ! -e corpus/sevenz/sfx ]; then
    # The shapes 7-Zip reads that the reader learned (tests/other_tools.rs): Copy, Deflate64
    # solid and not, an archive emptied of its files, a self-extracting program.
    seeds=$(mktemp -d -p "$scratch")
    mkdir -p "$seeds/tree" && printf 'hello\r\n' > "$seeds/tree/README.TXT" && head -c 3000 /dev/urandom > "$seeds/tree/A.BSX"
    range='\000\020\000\000\000\000\001\000'
    (cd "$seeds/tree" && 7zz a -bso0 -bsp0 -m0=Copy "$seeds/copy.7z" . && 7zz a -bso0 -bsp0 -m0=Deflate64 -ms=on "$seeds/d64s.7z" . && 7zz a -bso0 -bsp0 -m0=Deflate64 -ms=off "$seeds/d64.7z" . && 7zz a -bso0 -bsp0 "$seeds/empty.7z" README.TXT && 7zz d -bso0 -bsp0 "$seeds/empty.7z" README.TXT)
    for n in copy d64s d64 empty; do { printf "$range"; cat "$seeds/$n.7z"; } > "corpus/sevenz/$n"; done
    { printf "$range"; head -c 4096 /usr/lib/p7zip/7zCon.sfx; cat "$seeds/copy.7z"; } > corpus/sevenz/sfx
  fi
  if [ "$target" = sevenz ] && [ ! -e corpus/sevenz/copy-header ]; then
    # 7-Zip's archive with its header plain, then stored as py7zr's copy_2.7z stores it: an
    # encoded header of one Copy coder under an empty method id (tests/other_tools.rs).
    seeds=$(mktemp -d -p "$scratch")
    mkdir -p "$seeds/tree" && printf 'hello\r\n' > "$seeds/tree/README.TXT" && head -c 3000 /dev/urandom > "$seeds/tree/A.BSX"
    (cd "$seeds/tree" && 7zz a -bso0 -bsp0 -mhc=off -m0=Copy "$seeds/plain.7z" .)
    python3 -c "
import struct, sys, zlib
a = open(sys.argv[1], 'rb').read()
off, size = struct.unpack('<QQ', a[12:28])
def num(v):
    for n in range(8):
        if v < 1 << (7 * n + 7):
            return bytes([(0xFF00 >> n) & 0xFF | v >> (8 * n)]) + v.to_bytes(8, 'little')[:n]
    return b'\xff' + v.to_bytes(8, 'little')
e = b'\x17\x06' + num(off) + b'\x01\x09' + num(size) + b'\x00\x07\x0b\x01\x00\x01\x00\x0c' + num(size) + b'\x0a\x01' + struct.pack('<I', zlib.crc32(a[32 + off:32 + off + size])) + b'\x00\x00'
start = struct.pack('<QQI', off + size, len(e), zlib.crc32(e))
out = a[:8] + struct.pack('<I', zlib.crc32(start)) + start + a[32:32 + off + size] + e
open(sys.argv[2], 'wb').write(b'\x00\x10\x00\x00\x00\x00\x01\x00' + out)" "$seeds/plain.7z" corpus/sevenz/copy-header
  fi
  if [ "$target" = iso ] && [ ! -e corpus/iso/ce-loop ]; then
    # xorriso's Rock Ridge disc of a name long enough to continue in a CE area, that area
    # made to lead back to itself; and a zisofs file whose ZF entry says blocks of 2^2 and
    # 4,294,966,265 bytes (libarchive's zisofs_overflow disc) (tests/other_tools.rs).
    seeds=$(mktemp -d -p "$scratch")
    mkdir -p "$seeds/tree" "$seeds/ztree" && printf 'x%.0s' $(seq 230) > "$seeds/tree/L$(printf 'x%.0s' $(seq 200)).TXT"
    head -c 100000 /dev/zero | tr '\0' 'a' > "$seeds/ztree/BIG.BIN"
    xorriso -outdev "$seeds/rr.iso" -map "$seeds/tree" / -rockridge on -joliet off -commit >/dev/null 2>&1
    xorriso -outdev "$seeds/z.iso" -map "$seeds/ztree" / -rockridge on -set_filter_r --zisofs / -- -commit >/dev/null 2>&1
    python3 -c "
import struct, sys
both = lambda v: struct.pack('<I', v) + struct.pack('>I', v)
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(b'CE\x1c\x01')
blk, off, ln = (struct.unpack('<I', d[i + k:i + k + 4])[0] for k in (4, 12, 20))
at = blk * 2048 + off
d[at:at + 28] = b'CE\x1c\x01' + both(blk) + both(off) + both(ln)
# (Up to the area's sector: the fuzzer's inputs are at most 64 KB.)
open(sys.argv[3], 'wb').write(b'\x00\x10\x00\x00\x00\x00\x01\x00' + bytes(d[16 * 2048:(blk + 1) * 2048])[:65528])
z = bytearray(open(sys.argv[2], 'rb').read())
j = z.find(b'ZF\x10\x01pz')
z[j + 7] = 2
z[j + 8:j + 16] = both(0xFFFFFBF9)
open(sys.argv[4], 'wb').write(b'\x00\x10\x00\x00\x00\x00\x01\x00' + bytes(z[16 * 2048:]))" "$seeds/rr.iso" "$seeds/z.iso" corpus/iso/ce-loop corpus/iso/zisofs-overflow
  fi
  # Inputs up to 64 KB: large enough for deep trees and long index lists.
  cargo fuzz run --sanitizer none "$target" -- -max_total_time="$seconds" -max_len=65536 -timeout=5 -rss_limit_mb=1024 2>&1 | tail -n 3
done
