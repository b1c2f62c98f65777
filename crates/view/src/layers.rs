//! What the page's layer list, choice menu and test hooks read of the scene on show: the
//! layers with whether they show, the scene's choice, where a node is and how far a
//! material's texture has drifted at a time.

use crate::scene::{Repeat, Scene};
use serde::Serialize;

/// A layer as the page lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct LayerState<'a> {
    pub name: &'a str,
    pub shown: bool,
    /// Nodes on the layer.
    pub nodes: usize,
    /// Tiles of a game camera's picture on the layer (a field's background layer): shown
    /// through that camera.
    pub tiles: usize,
    /// The scene's choice shows and hides it (the page does not offer it as a switch).
    pub chosen: bool,
    /// A damage zone: the Parts view offers it (`view::parts`), not the layer list.
    pub zone: bool,
}

pub fn layers<'a>(scene: &'a Scene, hidden: &[u32]) -> Vec<LayerState<'a>> {
    let chosen: Vec<u32> = scene
        .choice
        .iter()
        .flat_map(|c| &c.options)
        .flat_map(|o| o.layers.iter().copied())
        .collect();
    // One pass over the nodes and masks over the layers: a model may have 50,000 zones.
    let (hidden, chosen, zones) = (
        scene.layer_mask(hidden),
        scene.layer_mask(&chosen),
        scene.layer_mask(&scene.zones),
    );
    let mut nodes = vec![0usize; scene.layers.len()];
    let mut tiles = vec![0usize; scene.layers.len()];
    for l in scene.ff7.cameras.iter().flat_map(|c| &c.layers) {
        if let Some(count) = tiles.get_mut(l.layer as usize) {
            *count += l.tiles;
        }
    }
    for n in &scene.nodes {
        for l in n.layer.iter().chain(n.part.iter().flat_map(|p| &p.zones)) {
            if let Some(count) = nodes.get_mut(*l as usize) {
                *count += 1;
            }
        }
    }
    scene
        .layers
        .iter()
        .enumerate()
        .map(|(i, name)| LayerState {
            name,
            shown: !hidden[i],
            nodes: nodes[i],
            tiles: tiles[i],
            chosen: chosen[i],
            zone: zones[i],
        })
        .collect()
}

/// The layers called by `names` (names the scene has not are ignored).
pub fn layers_named(scene: &Scene, names: &[String]) -> Vec<u32> {
    let by_name: std::collections::HashMap<&str, u32> = scene
        .layers
        .iter()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i as u32))
        .collect();
    names
        .iter()
        .filter_map(|n| by_name.get(n.as_str()).copied())
        .collect()
}

/// The scene's choice as the page's menu shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ChoiceState<'a> {
    pub name: &'a str,
    pub options: Vec<&'a str>,
    pub selected: Option<usize>,
}

pub fn choice(scene: &Scene, selected: Option<usize>) -> Option<ChoiceState<'_>> {
    let c = scene.choice.as_ref()?;
    Some(ChoiceState {
        name: &c.name,
        options: c.options.iter().map(|o| o.label.as_str()).collect(),
        selected,
    })
}

/// One period of everything that loops among the clips that play with the timeline (a
/// face's blink keeps a cadence of its own) (seconds; 0: none).
pub fn loop_duration(scene: &Scene) -> f32 {
    scene
        .timeline_clips()
        .filter(|c| c.repeat == Repeat::Loop)
        .map(|c| c.duration)
        .fold(0.0, f32::max)
}

/// Where the first node called `name` is in the world at `seconds`.
pub fn node_position(scene: &Scene, name: &str, seconds: f64) -> Option<[f32; 3]> {
    let i = scene
        .nodes
        .iter()
        .position(|n| n.name.as_deref() == Some(name))?;
    let world = scene.world(&scene.pose(seconds));
    Some(world[i].transform_point3(glam::Vec3::ZERO).to_array())
}

/// The UV offset of the first material called `name` at `seconds`.
pub fn uv_offset(scene: &Scene, name: &str, seconds: f64) -> Option<[f32; 2]> {
    let m = scene
        .materials
        .iter()
        .position(|m| m.name.as_deref() == Some(name))?;
    scene.uv_offsets(seconds).get(m).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Choice, ChoiceOption, Clip, Node, Target, Track};

    fn scene() -> Scene {
        let mut s = Scene {
            layers: vec!["models".into(), "dropzones".into(), "model 1".into()],
            ..Default::default()
        };
        let root = s.add_node(
            None,
            Node {
                name: Some("root".into()),
                ..Default::default()
            },
        );
        for (name, layer) in [("a", 0), ("b", 0), ("dz", 1), ("m1", 2)] {
            s.add_node(
                Some(root),
                Node {
                    name: Some(name.into()),
                    layer: Some(layer),
                    ..Default::default()
                },
            );
        }
        s.choice = Some(Choice {
            name: "model".into(),
            options: vec![ChoiceOption {
                label: "model 1".into(),
                layers: vec![2],
                clip: None,
            }],
            default: 0,
        });
        s.clips.push(Clip {
            name: "lift".into(),
            duration: 2.0,
            repeat: Repeat::Loop,
            tracks: vec![Track {
                target: Target::Translation(1),
                times: vec![0.0, 2.0],
                values: vec![0.0, 0.0, 0.0, 0.0, 4.0, 0.0],
            }],
        });
        s
    }

    #[test]
    fn layers_say_what_shows_and_what_the_choice_owns() {
        let s = scene();
        let l = layers(
            &s,
            &layers_named(&s, &["dropzones".into(), "nothing".into()]),
        );
        assert_eq!(
            l.iter()
                .map(|l| (l.name, l.shown, l.nodes, l.chosen))
                .collect::<Vec<_>>(),
            [
                ("models", true, 2, false),
                ("dropzones", false, 1, false),
                ("model 1", true, 1, true)
            ]
        );
        let c = choice(&s, Some(0)).unwrap();
        assert_eq!(
            (c.name, c.options, c.selected),
            ("model", vec!["model 1"], Some(0))
        );
        assert!(choice(&Scene::default(), None).is_none());
    }

    #[test]
    fn a_node_is_where_its_clip_puts_it() {
        let s = scene();
        assert_eq!(loop_duration(&s), 2.0);
        assert_eq!(node_position(&s, "a", 1.0), Some([0.0, 2.0, 0.0]));
        assert_eq!(node_position(&s, "nobody", 1.0), None);
        assert_eq!(uv_offset(&s, "none", 0.0), None);
    }
}
