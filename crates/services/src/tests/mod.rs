//! Formats opened through the archive's one open sequence. The formats' own tests, which
//! need no archive, are beside their code in the formats crate; these are here because that
//! crate cannot name the archive.

mod biz2_opened;
mod handover;
mod world_opened;
