//! The pods' worlds: .MAP game worlds (nested maps, includes, dropzones), .MOD game objects
//! (the BGF models they draw) and .SUB subsystems (doors), read from their INI-style text
//! with every byte accounted for, and assembled into one scene (docs/formats/worlds.md).

pub mod assemble;
pub mod document;
pub mod ini;
pub mod map;
pub mod objects;

pub use document::{open, sniff_map, sniff_mod, sniff_sub, Parsed, WorldDocument};
