//! Two worlds compared by what they place: every instance, through nested maps, paired by
//! its place in the tree of placements (docs/diff.md, "Placements").

use super::MAX_LISTED;
use crate::placement::Placement;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct PlacementCounts {
    pub same: usize,
    pub moved: usize,
    pub added: usize,
    pub removed: usize,
}

/// A placement of one world or both: where it is in each (absent on the side without it).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct PlacementChange {
    pub path: String,
    pub section: String,
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position_a: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position_b: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation_a: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation_b: Option<[f32; 3]>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Placements {
    pub counts: PlacementCounts,
    pub moved: Vec<PlacementChange>,
    pub added: Vec<PlacementChange>,
    pub removed: Vec<PlacementChange>,
}

/// How one placement compares: the same, moved, or on one side only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlacementStatus {
    Same,
    Moved,
    /// In A only.
    Removed,
    /// In B only.
    Added,
}

/// Every placement of each side with what became of it (the lists above stop at
/// [`MAX_LISTED`]; these do not), for the difference view.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlacementStatuses {
    pub a: Vec<PlacementStatus>,
    pub b: Vec<PlacementStatus>,
}

/// Two worlds' placements paired by path (`block[1]/crate[0]`): the same section placed
/// again in the same order is the same placement, wherever it went.
pub fn placements(a: &[Placement], b: &[Placement]) -> Placements {
    placements_with_statuses(a, b).0
}

impl PlacementChange {
    /// A placement's change, with no position or rotation yet.
    fn of(p: &Placement) -> PlacementChange {
        PlacementChange {
            path: p.path.clone(),
            section: p.section.clone(),
            model: p.model.clone(),
            position_a: None,
            position_b: None,
            rotation_a: None,
            rotation_b: None,
        }
    }
}

/// Whether the placement `pa` of A is where `pb` of B is: positions are written with three
/// decimals, so closer than that is the same place.
fn status_of(pa: &Placement, pb: &Placement) -> PlacementStatus {
    let near = |x: [f32; 3], y: [f32; 3]| x.iter().zip(&y).all(|(p, q)| (p - q).abs() < 1e-3);
    if near(pa.position, pb.position) && near(pa.rotation, pb.rotation) {
        PlacementStatus::Same
    } else {
        PlacementStatus::Moved
    }
}

pub(super) fn placements_with_statuses(
    a: &[Placement],
    b: &[Placement],
) -> (Placements, PlacementStatuses) {
    let of_b: HashMap<&str, usize> = b
        .iter()
        .enumerate()
        .map(|(i, p)| (p.path.as_str(), i))
        .collect();
    let mut out = Placements::default();
    let mut statuses = PlacementStatuses {
        a: Vec::with_capacity(a.len()),
        b: vec![PlacementStatus::Added; b.len()],
    };
    let mut paired = HashSet::new();
    for pa in a {
        match of_b.get(pa.path.as_str()) {
            Some(&k) => {
                let pb = &b[k];
                paired.insert(k);
                let status = status_of(pa, pb);
                statuses.a.push(status);
                statuses.b[k] = status;
                if status == PlacementStatus::Same {
                    out.counts.same += 1;
                } else {
                    out.counts.moved += 1;
                    if out.moved.len() < MAX_LISTED {
                        out.moved.push(PlacementChange {
                            position_a: Some(pa.position),
                            position_b: Some(pb.position),
                            rotation_a: Some(pa.rotation),
                            rotation_b: Some(pb.rotation),
                            ..PlacementChange::of(pa)
                        });
                    }
                }
            }
            None => {
                statuses.a.push(PlacementStatus::Removed);
                out.counts.removed += 1;
                if out.removed.len() < MAX_LISTED {
                    out.removed.push(PlacementChange {
                        position_a: Some(pa.position),
                        rotation_a: Some(pa.rotation),
                        ..PlacementChange::of(pa)
                    });
                }
            }
        }
    }
    for (_, pb) in b.iter().enumerate().filter(|(k, _)| !paired.contains(k)) {
        out.counts.added += 1;
        if out.added.len() < MAX_LISTED {
            out.added.push(PlacementChange {
                position_b: Some(pb.position),
                rotation_b: Some(pb.rotation),
                ..PlacementChange::of(pb)
            });
        }
    }
    (out, statuses)
}
