//! The field script's opcodes: each one's name and its length in bytes, the opcode byte
//! included (docs/formats/field-dat.md, "Scripts"). Three are longer than their row says:
//! SPECIAL (by its sub-opcode), KAWAI (its second byte is its length) and 0x1C (its sixth
//! byte adds to it). The lengths were checked by walking every script of the real fields:
//! each walk ends exactly where the next script starts (tests/field_dat.rs).

/// Name and length of each opcode, by its byte.
#[rustfmt::skip]
pub const OPCODES: [(&str, u8); 256] = [
    // 0x00
    ("RET", 1), ("REQ", 3), ("REQSW", 3), ("REQEW", 3), ("PREQ", 3), ("PRQSW", 3), ("PRQEW", 3), ("RETTO", 2),
    ("JOIN", 2), ("SPLIT", 15), ("SPTYE", 6), ("GTPYE", 6), ("op 0C", 1), ("op 0D", 1), ("DSKCG", 2), ("SPECIAL", 2),
    // 0x10
    ("JMPF", 2), ("JMPFL", 3), ("JMPB", 2), ("JMPBL", 3), ("IFUB", 6), ("IFUBL", 7), ("IFSW", 8), ("IFSWL", 9),
    ("IFUW", 8), ("IFUWL", 9), ("op 1A", 10), ("op 1B", 3), ("op 1C", 6), ("op 1D", 1), ("op 1E", 1), ("op 1F", 1),
    // 0x20
    ("MINIGAME", 11), ("TUTOR", 2), ("BTMD2", 5), ("BTRLD", 3), ("WAIT", 3), ("NFADE", 9), ("BLINK", 2), ("BGMOVIE", 2),
    ("KAWAI", 3), ("KAWIW", 1), ("PMOVA", 2), ("SLIP", 2), ("BGPDH", 5), ("BGSCR", 7), ("WCLS", 2), ("WSIZW", 10),
    // 0x30
    ("IFKEY", 4), ("IFKEYON", 4), ("IFKEYOFF", 4), ("UC", 2), ("PDIRA", 2), ("PTURA", 4), ("WSPCL", 5), ("WNUMB", 8),
    ("STTIM", 6), ("GOLDU", 6), ("GOLDD", 6), ("CHGLD", 4), ("HMPMAX1", 1), ("HMPMAX2", 1), ("MHMMX", 1), ("HMPMAX3", 1),
    // 0x40
    ("MESSAGE", 3), ("MPARA", 5), ("MPRA2", 6), ("MPNAM", 2), ("op 44", 1), ("MPU", 5), ("op 46", 1), ("MPD", 5),
    ("ASK", 7), ("MENU", 4), ("MENU2", 2), ("BTLTB", 2), ("op 4C", 1), ("HPU", 5), ("op 4E", 1), ("HPD", 5),
    // 0x50
    ("WINDOW", 10), ("WMOVE", 6), ("WMODE", 4), ("WREST", 2), ("WCLSE", 2), ("WROW", 3), ("GWCOL", 7), ("SWCOL", 7),
    ("STITM", 5), ("DLITM", 5), ("CKITM", 5), ("SMTRA", 7), ("DMTRA", 8), ("CMTRA", 10), ("SHAKE", 8), ("NOP", 1),
    // 0x60
    ("MAPJUMP", 10), ("SCRLO", 2), ("SCRLC", 5), ("SCRLA", 6), ("SCR2D", 6), ("SCRCC", 1), ("SCR2DC", 9), ("SCRLW", 1),
    ("SCR2DL", 9), ("MPDSP", 2), ("VWOFT", 7), ("FADE", 9), ("FADEW", 1), ("IDLCK", 4), ("LSTMP", 3), ("SCRLP", 6),
    // 0x70
    ("BATTLE", 4), ("BTLON", 2), ("BTLMD", 3), ("PGTDR", 4), ("GETPC", 4), ("PXYZI", 8), ("PLUS!", 4), ("PLUS2!", 5),
    ("MINUS!", 4), ("MINUS2!", 5), ("INC!", 3), ("INC2!", 3), ("DEC!", 3), ("DEC2!", 3), ("TLKON", 2), ("RDMSD", 3),
    // 0x80
    ("SETBYTE", 4), ("SETWORD", 5), ("BITON", 4), ("BITOFF", 4), ("BITXOR", 4), ("PLUS", 4), ("PLUS2", 5), ("MINUS", 4),
    ("MINUS2", 5), ("MUL", 4), ("MUL2", 5), ("DIV", 4), ("DIV2", 5), ("MOD", 4), ("MOD2", 5), ("AND", 4),
    // 0x90
    ("AND2", 5), ("OR", 4), ("OR2", 5), ("XOR", 4), ("XOR2", 5), ("INC", 3), ("INC2", 3), ("DEC", 3),
    ("DEC2", 3), ("RANDOM", 3), ("LBYTE", 4), ("HBYTE", 5), ("2BYTE", 6), ("SETX", 7), ("GETX", 7), ("SEARCHX", 11),
    // 0xA0
    ("PC", 2), ("CHAR", 2), ("DFANM", 3), ("ANIME1", 3), ("VISI", 2), ("XYZI", 11), ("XYI", 9), ("XYZ", 9),
    ("MOVE", 6), ("CMOVE", 6), ("MOVA", 2), ("TURA", 4), ("ANIMW", 1), ("FMOVE", 6), ("ANIME2", 3), ("ANIM!1", 3),
    // 0xB0
    ("CANIM1", 5), ("CANM!1", 5), ("MSPED", 4), ("DIR", 3), ("TURNGEN", 6), ("TURN", 6), ("DIRA", 2), ("GETDIR", 4),
    ("GETAXY", 5), ("GETAI", 4), ("ANIM!2", 3), ("CANIM2", 5), ("CANM!2", 5), ("ASPED", 4), ("op BE", 1), ("CC", 2),
    // 0xC0
    ("JUMP", 11), ("AXYZI", 8), ("LADER", 15), ("OFST", 12), ("OFSTW", 1), ("TALKR", 3), ("SLIDR", 3), ("SOLID", 2),
    ("PRTYP", 2), ("PRTYM", 2), ("PRTYE", 4), ("IFPRTYQ", 3), ("IFMEMBQ", 3), ("MMBUD", 3), ("MMBLK", 2), ("MMBUK", 2),
    // 0xD0
    ("LINE", 13), ("LINON", 2), ("MPJPO", 2), ("SLINE", 16), ("SIN", 10), ("COS", 10), ("TLKR2", 4), ("SLDR2", 4),
    ("PMJMP", 3), ("PMJMP2", 1), ("AKAO2", 15), ("FCFIX", 2), ("CCANM", 4), ("ANIMB", 1), ("TURNW", 1), ("MPPAL", 11),
    // 0xE0
    ("BGON", 4), ("BGOFF", 4), ("BGROL", 3), ("BGROL2", 3), ("BGCLR", 3), ("STPAL", 5), ("LDPAL", 5), ("CPPAL", 5),
    ("RTPAL", 7), ("ADPAL", 10), ("MPPAL2", 10), ("STPLS", 5), ("LDPLS", 5), ("CPPAL2", 8), ("RTPAL2", 8), ("ADPAL2", 11),
    // 0xF0
    ("MUSIC", 2), ("SOUND", 5), ("AKAO", 14), ("MUSVT", 2), ("MUSVM", 2), ("MULCK", 2), ("BMUSC", 2), ("CHMPH", 4),
    ("PMVIE", 2), ("MOVIE", 1), ("MVIEF", 3), ("MVCAM", 2), ("FMUSC", 2), ("CMUSC", 8), ("CHMST", 3), ("GAMEOVER", 1),
];

pub const RET: u8 = 0x00;
pub const SPECIAL: u8 = 0x0F;
pub const KAWAI: u8 = 0x28;
pub const OP_1C: u8 = 0x1C;

/// The length of the opcode at the start of `code` (which runs to its script's end), or
/// none where its bytes would run past it.
pub fn length(code: &[u8]) -> Option<usize> {
    let op = *code.first()?;
    let n = match op {
        SPECIAL => {
            2 + match code.get(1)? {
                0xF5 | 0xF6 | 0xF7 | 0xFB | 0xFC => 1,
                0xF8 | 0xFD => 2,
                _ => 0,
            }
        }
        // Its second byte is its whole length; less than its own two bytes and the
        // sub-opcode is not one.
        KAWAI => (*code.get(1)? as usize).max(3),
        OP_1C => 6 + *code.get(5)? as usize,
        _ => OPCODES[op as usize].1 as usize,
    };
    (n <= code.len()).then_some(n)
}

/// The opcode's name.
pub fn name(op: u8) -> &'static str {
    OPCODES[op as usize].0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_placing_opcodes_have_the_lengths_the_engine_reads() {
        for (op, name_, len) in [
            (0xA0, "PC", 2),
            (0xA1, "CHAR", 2),
            (0xA5, "XYZI", 11),
            (0xA7, "XYZ", 9),
            (0xB3, "DIR", 3),
            (0xA4, "VISI", 2),
            (0x60, "MAPJUMP", 10),
            (0xD0, "LINE", 13),
            (0x6D, "IDLCK", 4),
            (0xC3, "OFST", 12),
        ] {
            assert_eq!((name(op), OPCODES[op as usize].1), (name_, len));
        }
    }

    #[test]
    fn the_three_long_ones_take_their_length_from_their_bytes() {
        assert_eq!(length(&[SPECIAL, 0xF5, 1]), Some(3));
        assert_eq!(length(&[SPECIAL, 0xF8, 1, 2]), Some(4));
        assert_eq!(length(&[SPECIAL, 0xF9]), Some(2));
        assert_eq!(length(&[KAWAI, 5, 0, 1, 2]), Some(5));
        assert_eq!(length(&[OP_1C, 0, 0, 0, 0, 3, 1, 2, 3]), Some(9));
        assert_eq!(length(&[0xA5, 0, 0]), None, "cut short");
        assert_eq!(length(&[]), None);
    }
}
