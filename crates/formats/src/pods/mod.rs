//! The BattleTech / Red Planet pods' files: Division's DIV-BIZ2 geometry and material
//! libraries ([`biz2`]) and the INI-style worlds, game objects and subsystems that place them
//! ([`world`]).

pub mod biz2;
pub mod world;

/// The family's rows.
pub const FORMATS: &[&[crate::kind::Format]] = &[biz2::FORMATS, world::FORMATS];
