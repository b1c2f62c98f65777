//! The init pass (docs/formats/field-dat.md, "Where the models stand"): what the engine does
//! when the player enters a field, run on the script as it is. Each actor's script 0 runs
//! from its start to its first RET, in actor order, its jumps and conditions followed against
//! a memory image (every variable 0 unless set), its writes to memory kept for the actors
//! after it. What it does to the models is recorded: which actor binds which model slot
//! (CHAR, in the order they run), who is a playable character (PC), where each stands
//! (XYZI, XYZ, XYI), which way it faces (DIR), whether it is shown (VISI), its idle animation
//! (DFANM), and every condition it tested.

use super::raw::ScriptSection;

/// The most opcodes one actor's init may run: init code is straight, with a few branches;
/// a loop that never ends is stopped here and said.
pub const MAX_STEPS: usize = 10_000;

/// The save area (five banks of 256 bytes) and the field's own scratch bank.
#[derive(Debug, Clone)]
pub struct Memory {
    pub save: [u8; 0x500],
    pub scratch: [u8; 0x100],
}

impl Default for Memory {
    fn default() -> Memory {
        Memory {
            save: [0; 0x500],
            scratch: [0; 0x100],
        }
    }
}

/// Where a bank's 256 bytes are, and whether its values are bytes or 16-bit words.
fn bank(b: u8) -> Option<(Area, usize, bool)> {
    // (area, base, word)
    Some(match b {
        1 => (Area::Save, 0x000, false),
        2 => (Area::Save, 0x000, true),
        3 => (Area::Save, 0x100, false),
        4 => (Area::Save, 0x100, true),
        0xB => (Area::Save, 0x200, false),
        0xC => (Area::Save, 0x200, true),
        0xD => (Area::Save, 0x300, false),
        0xE => (Area::Save, 0x300, true),
        0xF => (Area::Save, 0x400, false),
        7 => (Area::Save, 0x400, true),
        5 => (Area::Scratch, 0, false),
        6 => (Area::Scratch, 0, true),
        _ => return None,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Area {
    Save,
    Scratch,
}

impl Memory {
    fn area(&mut self, a: Area) -> &mut [u8] {
        match a {
            Area::Save => &mut self.save,
            Area::Scratch => &mut self.scratch,
        }
    }
    /// The value of an operand: `raw` itself in bank 0, else the variable at address
    /// `raw & 0xFF` of the bank.
    pub fn read(&mut self, b: u8, raw: u16) -> i32 {
        let Some((area, base, word)) = bank(b) else {
            return raw as i32;
        };
        let at = base + (raw & 0xFF) as usize;
        let m = self.area(area);
        let lo = m[at % m.len()] as i32;
        if word {
            lo | (m[(at + 1) % m.len()] as i32) << 8
        } else {
            lo
        }
    }
    pub fn write(&mut self, b: u8, address: u8, value: i32) {
        let Some((area, base, word)) = bank(b) else {
            return;
        };
        let m = self.area(area);
        let at = base + address as usize;
        let len = m.len();
        m[at % len] = value as u8;
        if word {
            m[(at + 1) % len] = (value >> 8) as u8;
        }
    }
    /// Set `BANK:ADDRESS` (as `--set` writes it) to `value`.
    pub fn set(&mut self, b: u8, address: u8, value: i32) -> bool {
        if bank(b).is_none() {
            return false;
        }
        self.write(b, address, value);
        true
    }
}

/// An entity as the init pass left it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entity {
    /// The model slot CHAR bound it to.
    pub model: Option<usize>,
    /// The playable character PC made it (0 Cloud, 1 Barret, 2 Tifa, 3 Aerith, 4 Red XIII,
    /// 5 Yuffie, 6 Cait Sith, 7 Vincent, 8 Cid).
    pub character: Option<u8>,
    pub position: Option<[i16; 3]>,
    pub triangle: Option<u16>,
    pub direction: u8,
    pub visible: bool,
    pub animation: u8,
    /// An event line (ladders, exits), not a model.
    pub line: Option<[[i16; 3]; 2]>,
    /// Placed by XYI, which gives no z: its z is its triangle's plane's there (the walkmesh
    /// is not the init's to read: [`InitPass::settle`]).
    pub z_on_plane: bool,
}

/// A condition the pass tested: where, what it compared, and whether it held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Branch {
    pub actor: usize,
    pub at: usize,
    pub test: String,
    pub taken: bool,
}

/// What the init pass did.
#[derive(Debug, Clone, Default)]
pub struct InitPass {
    pub entities: Vec<Entity>,
    pub branches: Vec<Branch>,
    /// Actors whose init did not reach its RET, and why.
    pub stopped: Vec<(usize, usize, String)>,
    /// Whether an init locked the player's control (UC 1): the leader then stays where the
    /// script put it.
    pub control_locked: bool,
    /// Walkmesh triangles the init locked.
    pub locked_triangles: Vec<u16>,
}

/// The party leader: the player, who comes in by an entrance. With every variable 0 the
/// party is Cloud's.
pub const LEADER: u8 = 0;

fn s16(b: &[u8], at: usize) -> i16 {
    i16::from_le_bytes([b[at], b[at + 1]])
}
fn u16_(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

const CONDITIONS: [&str; 11] = [
    "==",
    "!=",
    ">",
    "<",
    ">=",
    "<=",
    "&",
    "^",
    "|",
    "bit set",
    "bit clear",
];

fn holds(a: i32, b: i32, cond: u8) -> bool {
    match cond {
        0 => a == b,
        1 => a != b,
        2 => a > b,
        3 => a < b,
        4 => a >= b,
        5 => a <= b,
        6 => a & b != 0,
        7 => a ^ b != 0,
        8 => a | b != 0,
        9 => b < 32 && a >> b & 1 == 1,
        10 => b < 32 && a >> b & 1 == 0,
        _ => false,
    }
}

/// Run the init pass of `script` (whose bytes are `bytes`, file offsets) against `memory`.
pub fn run(script: &ScriptSection, bytes: &[u8], memory: &mut Memory) -> InitPass {
    let mut pass = InitPass {
        entities: vec![Entity::default(); script.table.len()],
        ..InitPass::default()
    };
    let mut next_slot = 0;
    for actor in 0..script.table.len() {
        let Some(code) = script.code_of(actor, 0) else {
            continue;
        };
        // Init may jump anywhere in the actor's code up to the dialogue: the section's
        // code is the bound.
        let end = script.range.start + script.text_offset as usize;
        let mut pc = code.range.start;
        let mut steps = 0;
        loop {
            if steps == MAX_STEPS {
                pass.stopped.push((
                    actor,
                    pc,
                    format!("{MAX_STEPS} opcodes run without reaching RET"),
                ));
                break;
            }
            steps += 1;
            let Some(len) = (pc < end)
                .then(|| super::opcodes::length(&bytes[pc..end]))
                .flatten()
            else {
                pass.stopped
                    .push((actor, pc, "the code ran out before a RET".into()));
                break;
            };
            let op = &bytes[pc..pc + len];
            match step(op, pc, actor, memory, &mut pass, &mut next_slot) {
                Flow::Next => pc += len,
                Flow::Jump(to) => pc = to,
                Flow::Return => break,
            }
        }
    }
    pass
}

enum Flow {
    Next,
    Jump(usize),
    Return,
}

/// Each byte's two bank numbers: the high nibble first.
fn banks(b: u8) -> (u8, u8) {
    (b >> 4, b & 0xF)
}

/// One opcode of an init. `op` holds its bytes, at file offset `pc`.
fn step(
    op: &[u8],
    pc: usize,
    actor: usize,
    memory: &mut Memory,
    pass: &mut InitPass,
    next_slot: &mut usize,
) -> Flow {
    match op[0] {
        0x00 => Flow::Return,
        0x10 => Flow::Jump(pc + 1 + op[1] as usize),
        0x11 => Flow::Jump(pc + 1 + u16_(op, 1) as usize),
        0x12 => Flow::Jump(pc.saturating_sub(op[1] as usize)),
        0x13 => Flow::Jump(pc.saturating_sub(u16_(op, 1) as usize)),
        0x14..=0x19 => condition(op, pc, actor, memory, pass),
        0x80..=0x83 => {
            assign(op, memory);
            Flow::Next
        }
        _ => {
            model(op, actor, memory, pass, next_slot);
            Flow::Next
        }
    }
}

/// A condition: tested, listed, and jumped past when it does not hold.
fn condition(op: &[u8], pc: usize, actor: usize, memory: &mut Memory, pass: &mut InitPass) -> Flow {
    let hi = banks;
    let (b1, b2) = hi(op[1]);
    let (a, b, cond, jump_at) = match op[0] {
        0x14 | 0x15 => (
            memory.read(b1, op[2] as u16),
            memory.read(b2, op[3] as u16),
            op[4],
            5,
        ),
        _ => {
            let (x, y) = (memory.read(b1, u16_(op, 2)), memory.read(b2, u16_(op, 4)));
            // IFSW reads signed words; IFUW unsigned.
            let signed = |v: i32| {
                if matches!(op[0], 0x16 | 0x17) {
                    v as u16 as i16 as i32
                } else {
                    v as u16 as i32
                }
            };
            (signed(x), signed(y), op[6], 7)
        }
    };
    let taken = holds(a, b, cond);
    pass.branches.push(Branch {
        actor,
        at: pc,
        test: format!(
            "{} {} {}",
            operand(b1, op, 2, op[0] >= 0x16),
            CONDITIONS.get(cond as usize).unwrap_or(&"?"),
            operand(b2, op, if op[0] >= 0x16 { 4 } else { 3 }, op[0] >= 0x16)
        ),
        taken,
    });
    if !taken {
        let j = if op[0] % 2 == 1 {
            u16_(op, jump_at) as usize
        } else {
            op[jump_at] as usize
        };
        return Flow::Jump(pc + jump_at + j);
    }
    Flow::Next
}

/// A write to a variable.
fn assign(op: &[u8], memory: &mut Memory) {
    let hi = banks;
    match op[0] {
        0x80 => {
            let (b1, b2) = hi(op[1]);
            let v = memory.read(b2, op[3] as u16);
            memory.write(b1, op[2], v);
        }
        0x81 => {
            let (b1, b2) = hi(op[1]);
            let v = memory.read(b2, u16_(op, 3));
            memory.write(b1, op[2], v);
        }
        0x82 | 0x83 => {
            let (b1, b2) = hi(op[1]);
            let bit = memory.read(b2, op[3] as u16);
            let v = memory.read(b1, op[2] as u16);
            if (0..32).contains(&bit) {
                let v = if op[0] == 0x82 {
                    v | 1 << bit
                } else {
                    v & !(1 << bit)
                };
                memory.write(b1, op[2], v);
            }
        }
        _ => {}
    }
}

/// What an opcode does to the actor's model.
fn model(op: &[u8], actor: usize, memory: &mut Memory, pass: &mut InitPass, next_slot: &mut usize) {
    let hi = banks;
    let e = &mut pass.entities[actor];
    match op[0] {
        0xA1 => {
            e.model = Some(*next_slot);
            e.visible = true;
            *next_slot += 1;
        }
        0xA0 => {
            e.character = Some(op[1]);
            if op[1] != LEADER {
                e.visible = false;
            }
        }
        0xA4 => e.visible = op[1] != 0,
        // The banks: x's and y's in the first byte, the third operand's and (XYZI) the
        // triangle's in the second.
        0xA5..=0xA7 if e.model.is_some() => {
            let (bx, by) = hi(op[1]);
            let (b3, b4) = hi(op[2]);
            let x = memory.read(bx, u16_(op, 3)) as i16;
            let y = memory.read(by, u16_(op, 5)) as i16;
            let third = memory.read(b3, u16_(op, 7));
            match op[0] {
                0xA5 => {
                    e.position = Some([x, y, third as i16]);
                    e.triangle = Some(memory.read(b4, u16_(op, 9)) as u16);
                }
                0xA7 => e.position = Some([x, y, third as i16]),
                _ => {
                    // XYI gives no z: the triangle's plane gives it (settle), as the engine
                    // stands a character on the walkmesh.
                    let z = e.position.map_or(0, |p| p[2]);
                    e.position = Some([x, y, z]);
                    e.triangle = Some(third as u16);
                }
            }
            e.z_on_plane = op[0] == 0xA6;
        }
        0xB3 => e.direction = memory.read(op[1] & 0xF, op[2] as u16) as u8,
        0xA2 => e.animation = op[1],
        0x33 => pass.control_locked = op[1] == 1,
        0x6D if op[3] != 0 => pass.locked_triangles.push(u16_(op, 1)),
        0xD0 => {
            e.line = Some([
                [s16(op, 1), s16(op, 3), s16(op, 5)],
                [s16(op, 7), s16(op, 9), s16(op, 11)],
            ])
        }
        _ => {}
    }
}

impl InitPass {
    /// Each entity XYI placed stood on its triangle's plane of walkmesh `w` (where it has
    /// that triangle).
    pub fn settle(&mut self, w: &super::raw::Walkmesh) {
        for e in self.entities.iter_mut().filter(|e| e.z_on_plane) {
            if let (Some(p), Some(t)) = (&mut e.position, e.triangle) {
                if let Some(z) = super::entrances::height_on(w, t, p[0], p[1]) {
                    p[2] = z;
                }
            }
        }
    }
}

/// An operand as the script writes it: a number, or a variable `[bank:address]`.
fn operand(b: u8, op: &[u8], at: usize, word: bool) -> String {
    let raw = if word { u16_(op, at) } else { op[at] as u16 };
    if b == 0 {
        raw.to_string()
    } else {
        format!("[{b}:{}]", raw & 0xFF)
    }
}
