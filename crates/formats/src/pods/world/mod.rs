//! The pods' worlds: .MAP game worlds (nested maps, includes, dropzones), .MOD game objects
//! (the BGF models they draw) and .SUB subsystems (doors), read from their INI-style text
//! with every byte accounted for, and assembled into one scene (docs/formats/worlds.md).

pub mod assemble;
pub mod document;
pub mod ini;
pub mod map;
pub mod objects;

pub use document::{open, sniff_map, sniff_mod, sniff_sub, Parsed, WorldDocument};

use crate::kind::{Capabilities, Claim, Format, Kind, Sniffed};

/// A game world (.MAP).
pub const MAP: Kind = Kind::new("map");
/// A game object (.MOD).
pub const MOD: Kind = Kind::new("mod");
/// Subsystems (.SUB): doors and the like.
pub const SUB: Kind = Kind::new("sub");

pub const FORMATS: &[Format] = &[
    Format {
        kind: MAP,
        label: "MAP",
        title: "pod world",
        caps: Capabilities {
            assembles: true,
            scene: true,
            text: true,
            used_by: true,
            primary: true,
            ..Capabilities::NONE
        },
        sniffs: &[(Sniffed::Name, sniff_map)],
        named: &["map"],
        claims: &[Claim {
            extensions: &["map"],
            what: "a pod world (INI-style text)",
            starts_with: None,
        }],
        refers_to: &[MOD, MAP],
        open,
    },
    Format {
        kind: MOD,
        label: "MOD",
        title: "pod game object",
        caps: Capabilities {
            scene: true,
            text: true,
            used_by: true,
            ..Capabilities::NONE
        },
        sniffs: &[(Sniffed::Name, sniff_mod)],
        named: &["mod"],
        claims: &[Claim {
            extensions: &["mod"],
            what: "a pod game object (INI-style text)",
            starts_with: None,
        }],
        refers_to: &[crate::pods::biz2::GEOMETRY, SUB],
        open,
    },
    Format {
        kind: SUB,
        label: "SUB",
        title: "pod subsystems",
        caps: Capabilities {
            text: true,
            used_by: true,
            ..Capabilities::NONE
        },
        sniffs: &[(Sniffed::Name, sniff_sub)],
        named: &["sub"],
        claims: &[Claim {
            extensions: &["sub"],
            what: "pod subsystems (INI-style text)",
            starts_with: None,
        }],
        refers_to: &[],
        open,
    },
];
