//! zisofs: a file of an ISO 9660 image stored compressed block by block (Rock Ridge's ZF
//! entry says so), as mkzftree and xorriso write it: a 16-byte header, a table of where each
//! block's zlib stream starts, then the streams. Any block is read alone, so a range of the
//! file costs only its blocks. docs/formats/containers.md, "ISO 9660".

use std::io::Read;

/// Reads `buf.len()` of the stored bytes at an offset.
pub type ReadAt<'a> = &'a mut dyn FnMut(u64, &mut [u8]) -> Result<(), String>;
/// Takes the decoded bytes a piece at a time.
pub type Sink<'a> = &'a mut dyn FnMut(&[u8]) -> Result<(), String>;

/// A zisofs file's first bytes.
pub const MAGIC: [u8; 8] = [0x37, 0xE4, 0x53, 0x96, 0xC9, 0xDB, 0xD6, 0x07];
const HEADER: usize = 16;

/// Whether a zisofs file of `size` bytes in blocks of `1 << log2` can be held by `stored`
/// bytes: the block size one the format allows (2^15 to 2^17), and the header and the table of
/// block offsets (one more than the blocks) within them; else why not.
pub fn plausible(log2: u8, size: u64, stored: u64) -> Result<(), String> {
    if !(15..=17).contains(&log2) {
        return Err(format!("blocks of 2^{log2} bytes: expected 2^15 to 2^17"));
    }
    let table = (size.div_ceil(1 << log2) + 1) * 4;
    if HEADER as u64 + table > stored {
        return Err(format!(
            "its header and table of {} block offsets take {} bytes, more than the {stored} stored",
            table / 4,
            HEADER as u64 + table
        ));
    }
    Ok(())
}

/// The zisofs header of a file of `size` bytes in blocks of `1 << log2`, `stored` bytes
/// stored, checked against its ZF entry.
fn read_header(stored: u64, size: u64, log2: u8, read: ReadAt) -> Result<[u8; HEADER], String> {
    let mut header = [0u8; HEADER];
    if stored < HEADER as u64 {
        return Err(format!(
            "zisofs: {stored} bytes stored, fewer than its {HEADER}-byte header"
        ));
    }
    read(0, &mut header)?;
    if header[..8] != MAGIC {
        return Err("zisofs: its header does not start with zisofs's magic number".into());
    }
    let declared = u32::from_le_bytes([header[8], header[9], header[10], header[11]]) as u64;
    if declared != size {
        return Err(format!(
            "zisofs: its header says {declared} bytes, its ZF entry {size}"
        ));
    }
    if header[13] != log2 {
        return Err(format!(
            "zisofs: its header says blocks of 2^{}, its ZF entry 2^{log2}",
            header[13]
        ));
    }
    Ok(header)
}

/// Block `k`, stored at bytes `from..to`, inflated into `plain` (`want` bytes), read through
/// `compressed`.
fn inflate_block(
    k: u64,
    (from, to): (u64, u64),
    want: usize,
    read: ReadAt,
    compressed: &mut Vec<u8>,
    plain: &mut Vec<u8>,
) -> Result<(), String> {
    plain.clear();
    if from == to {
        // An empty stream is a block of zeros.
        plain.resize(want, 0);
    } else {
        compressed.resize((to - from) as usize, 0);
        read(from, compressed)?;
        flate2::read::ZlibDecoder::new(&compressed[..])
            .take(want as u64 + 1)
            .read_to_end(plain)
            .map_err(|e| format!("zisofs: block {k} cannot be inflated: {e}"))?;
        if plain.len() != want {
            return Err(format!(
                "zisofs: block {k} inflates to {} bytes, not {want}",
                plain.len()
            ));
        }
    }
    Ok(())
}

/// Bytes `skip..skip + take` of a zisofs file of `size` bytes in blocks of `1 << log2` (as its
/// ZF entry says), whose `stored` bytes are read by `read(offset, buf)`, handed to `sink` a
/// block's part at a time. Every offset the file gives is checked against what is stored
/// before anything is read or allocated by it.
pub fn decode(
    stored: u64,
    size: u64,
    log2: u8,
    read: ReadAt,
    skip: u64,
    take: u64,
    sink: Sink,
) -> Result<(), String> {
    if !(15..=17).contains(&log2) {
        return Err(format!(
            "zisofs blocks of 2^{log2} bytes: expected 2^15 to 2^17"
        ));
    }
    if take == 0 {
        return Ok(());
    }
    let header = read_header(stored, size, log2, read)?;
    let table_at = header[12] as u64 * 4;
    let block = 1u64 << log2;
    let blocks = size.div_ceil(block);
    let table_len = (blocks + 1) * 4;
    if table_at < HEADER as u64 || table_at + table_len > stored {
        return Err(format!("zisofs: its table of {} block offsets at byte {table_at} runs past the {stored} bytes stored", blocks + 1));
    }
    let (first, last) = (skip / block, (skip + take - 1) / block);
    // The part of the table these blocks need: their starts and the next one's.
    let mut table = vec![0u8; ((last - first + 2) * 4) as usize];
    read(table_at + first * 4, &mut table)?;
    let at = |k: u64| {
        let i = ((k - first) * 4) as usize;
        u32::from_le_bytes([table[i], table[i + 1], table[i + 2], table[i + 3]]) as u64
    };
    let mut compressed = Vec::new();
    let mut plain = Vec::with_capacity(block as usize);
    for k in first..=last {
        let (from, to) = (at(k), at(k + 1));
        // A zlib stream of a block is at most a little more than the block.
        if from > to || to > stored || to - from > block + block / 2 {
            return Err(format!("zisofs: block {k} at bytes {from}..{to} of the {stored} stored: not one block's stream"));
        }
        let want = block.min(size - k * block) as usize;
        inflate_block(k, (from, to), want, read, &mut compressed, &mut plain)?;
        let base = k * block;
        let (lo, hi) = (
            skip.max(base) - base,
            (skip + take).min(base + want as u64) - base,
        );
        sink(&plain[lo as usize..hi as usize])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A zisofs file of `data` in blocks of 2^15, written as the format's description lays it
    /// out (a block of zeros as an empty stream).
    fn zisofs(data: &[u8]) -> Vec<u8> {
        let block = 1 << 15;
        let mut header = MAGIC.to_vec();
        header.extend((data.len() as u32).to_le_bytes());
        header.extend([4, 15, 0, 0]);
        let blocks: Vec<&[u8]> = data.chunks(block).collect();
        let mut streams = Vec::new();
        let mut table = Vec::new();
        let mut at = (HEADER + (blocks.len() + 1) * 4) as u32;
        for b in &blocks {
            table.extend(at.to_le_bytes());
            if b.iter().all(|&x| x == 0) {
                continue;
            }
            let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            z.write_all(b).unwrap();
            let s = z.finish().unwrap();
            at += s.len() as u32;
            streams.extend(s);
        }
        table.extend(at.to_le_bytes());
        [header, table, streams].concat()
    }

    fn decoded(file: &[u8], size: u64, skip: u64, take: u64) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        decode(
            file.len() as u64,
            size,
            15,
            &mut |at, buf| {
                file.get(at as usize..at as usize + buf.len())
                    .map(|b| buf.copy_from_slice(b))
                    .ok_or_else(|| "past the end".to_string())
            },
            skip,
            take,
            &mut |b| {
                let _: () = out.extend_from_slice(b);
                Ok(())
            },
        )?;
        Ok(out)
    }

    #[test]
    fn any_range_reads_its_blocks_alone_and_a_block_of_zeros_is_an_empty_stream() {
        let mut data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        data[40_000..70_000].fill(0);
        let file = zisofs(&data);
        assert_eq!(
            decoded(&file, data.len() as u64, 0, data.len() as u64).unwrap(),
            data
        );
        for (skip, take) in [(0, 1), (32_767, 2), (65_530, 100), (99_999, 1), (1000, 0)] {
            assert_eq!(
                decoded(&file, data.len() as u64, skip, take).unwrap(),
                data[skip as usize..(skip + take) as usize],
                "{skip}+{take}"
            );
        }
    }

    #[test]
    fn a_damaged_header_table_or_stream_is_an_error_never_a_panic() {
        let data: Vec<u8> = (0..70_000u32).map(|i| (i % 13) as u8).collect();
        let file = zisofs(&data);
        assert!(decoded(&file, 1, 0, 1)
            .unwrap_err()
            .contains("its header says 70000 bytes"));
        for cut in [0, 10, 20, 30, file.len() - 1] {
            assert!(
                decoded(&file[..cut], data.len() as u64, 0, data.len() as u64).is_err(),
                "cut at {cut}"
            );
        }
        for at in 0..40 {
            let mut bad = file.clone();
            bad[at] ^= 0xFF;
            let _ = decoded(&bad, data.len() as u64, 0, data.len() as u64);
        }
        let mut table = file.clone();
        table[HEADER + 4..HEADER + 8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decoded(&table, data.len() as u64, 0, data.len() as u64)
            .unwrap_err()
            .contains("not one block's stream"));
    }
}
