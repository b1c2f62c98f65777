//! A world assembled: the map's sections and those of the maps it includes, its root map
//! section expanded (nested maps composed, child under parent), and the whole as a neutral
//! scene — one mesh set per unique BGF, a node per placement, dropzones as markers and
//! viewpoints, doors as looping clips (docs/formats/worlds.md, "Assembly").

use super::map::{Instance, MapFile, MapSection, Pose, SectionKind};
use super::objects::{GameObject, SubsystemFile};
use crate::inspect::Diagnostics;
use crate::scene::{
    Absorbed, Clip, Marker, Node, RecordBytes, Repeat, Scene, Target, Track, Transform, Viewpoint,
};
use crate::ParseError;
use crate::Resolution;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

/// Includes nest at most this deep.
pub const MAX_INCLUDE_DEPTH: usize = 8;
/// Maps nest in each other at most this deep.
pub const MAX_NESTING: usize = 16;
/// Most placements (of every kind) a world expands to; nested maps multiply.
pub const MAX_PLACEMENTS: usize = 100_000;

/// What the assembler asks of the archive. Every name resolves from the root map's own game
/// tree first (the archive's nearest-first rule).
pub trait WorldAssets {
    /// The file a name written in the world leads to.
    fn resolve(&self, name: &str) -> Resolution;
    /// A .MAP that was read, parsed.
    fn map(&self, path: &str) -> Option<&MapFile>;
    fn game_object(&self, path: &str) -> Option<&GameObject>;
    fn subsystems(&self, path: &str) -> Option<&SubsystemFile>;
    /// The scene of a model file that was read (None when it cannot be drawn).
    fn model_scene(&self, path: &str) -> Option<Scene>;
    /// Whether `path` was read (successfully or not).
    fn known(&self, path: &str) -> bool;
}

/// A section found in the root map or a map it includes.
#[derive(Debug, Clone, Copy)]
pub struct Found<'m> {
    /// Index into [`Sections::files`] (0 is the root map).
    pub file: usize,
    pub section: &'m MapSection,
}

/// Every section the root map can use, by lower-case name.
#[derive(Debug, Default)]
pub struct Sections<'m> {
    /// (path, parsed) of the root map and of each included map, in the order met.
    pub files: Vec<(String, &'m MapFile)>,
    by_name: HashMap<String, Found<'m>>,
    /// Include files written but not (yet) read: (written name, resolved path if any).
    pub unread: Vec<(String, Option<String>)>,
    pub diagnostics: Diagnostics,
}

impl<'m> Sections<'m> {
    pub fn get(&self, name: &str) -> Option<Found<'m>> {
        // Looked up once per placement: a short name is lower-cased on the stack.
        let mut buffer = [0u8; 64];
        match buffer.get_mut(..name.len()) {
            Some(lower) => {
                lower.copy_from_slice(name.as_bytes());
                lower.make_ascii_lowercase();
                // (ASCII case changes keep UTF-8 valid.)
                self.by_name.get(std::str::from_utf8(lower).ok()?).copied()
            }
            None => self.by_name.get(&name.to_ascii_lowercase()).copied(),
        }
    }

    /// The `modelfile=` of every model section the map section `root` places, directly or
    /// through the maps it places (each section looked at once, cycles and all): what a
    /// world needs read, without expanding its placements.
    pub fn model_files_placed(&self, root: &'m MapSection) -> Vec<&'m str> {
        let mut out: Vec<&'m str> = Vec::new();
        // (Sets, not searches of `out`: a hostile map may name 100,000 files.)
        let mut files: std::collections::HashSet<String> = std::collections::HashSet::new();
        let mut seen: std::collections::HashSet<*const MapSection> =
            std::collections::HashSet::from([root as *const MapSection]);
        let mut maps = vec![root];
        while let Some(map) = maps.pop() {
            for inst in map.instances() {
                let Some(found) = self.get(&inst.target) else {
                    continue;
                };
                if !seen.insert(found.section as *const MapSection) {
                    continue;
                }
                match &found.section.kind {
                    SectionKind::Model { modelfile: Some(m) }
                        if files.insert(m.value.to_ascii_lowercase()) =>
                    {
                        out.push(&m.value)
                    }
                    SectionKind::Map { .. } => maps.push(found.section),
                    _ => {}
                }
            }
        }
        out
    }
}

/// Gather the sections of `root` and of the maps it includes (depth first, in order). The
/// first definition of a name wins; a later one is reported. An include cycle is an error
/// at the root's include line that leads into it.
pub fn gather<'m>(
    root_path: &str,
    root: &'m MapFile,
    assets: &'m dyn WorldAssets,
) -> Result<Sections<'m>, ParseError> {
    let mut out = Sections {
        files: vec![(root_path.to_string(), root)],
        ..Default::default()
    };
    let mut stack: Vec<String> = vec![root_path.to_ascii_lowercase()];
    visit(&mut out, 0, root, assets, &mut stack, None)?;
    Ok(out)
}

fn visit<'m>(
    out: &mut Sections<'m>,
    file: usize,
    map: &'m MapFile,
    assets: &'m dyn WorldAssets,
    stack: &mut Vec<String>,
    via: Option<(u32, &str)>,
) -> Result<(), ParseError> {
    for s in &map.sections {
        match out.by_name.get(&s.key()) {
            Some(first) => {
                let (path, _) = &out.files[first.file];
                let here = &out.files[file].0;
                let offset = via.map_or(s.offset, |(o, _)| o) as usize;
                out.diagnostics.add(offset, || format!("line {}", s.line), || format!("[{}] in {here} is defined before, in {path} line {}; the first is used", s.name, first.section.line));
            }
            None => {
                out.by_name.insert(s.key(), Found { file, section: s });
            }
        }
    }
    for s in &map.sections {
        let SectionKind::Include { file: Some(inc) } = &s.kind else {
            continue;
        };
        // The error offset is always in the root map: its own line, or the include that led here.
        let (at, chain) = via.map_or((inc.offset, String::new()), |(o, c)| (o, c.to_string()));
        let here = &out.files[file].0.clone();
        let step = format!(
            "{chain}{}{here} line {} includes {}",
            if chain.is_empty() { "" } else { ", " },
            inc.line,
            inc.value
        );
        let Some(path) = assets.resolve(&inc.value).file else {
            out.unread.push((inc.value.clone(), None));
            continue;
        };
        if stack.contains(&path.to_ascii_lowercase()) {
            return Err(ParseError::new(
                at as usize,
                &format!("line {}", line_at(out.files[0].1, at)),
                format!("include cycle: {step}, which is already being read"),
            ));
        }
        if stack.len() > MAX_INCLUDE_DEPTH {
            return Err(ParseError::new(
                at as usize,
                &format!("line {}", line_at(out.files[0].1, at)),
                format!("includes nest deeper than {MAX_INCLUDE_DEPTH}: {step}"),
            ));
        }
        if out.files.iter().any(|(p, _)| p.eq_ignore_ascii_case(&path)) {
            continue;
        }
        let Some(included) = assets.map(&path) else {
            out.unread.push((inc.value.clone(), Some(path)));
            continue;
        };
        out.files.push((path.clone(), included));
        stack.push(path.to_ascii_lowercase());
        let next = out.files.len() - 1;
        visit(out, next, included, assets, stack, Some((at, &step)))?;
        stack.pop();
    }
    Ok(())
}

/// The line of the root map's entry or section at `offset`.
fn line_at(map: &MapFile, offset: u32) -> u32 {
    let mut line = 0;
    for s in &map.sections {
        if s.offset <= offset {
            line = s.line;
        }
        for i in s.instances() {
            if i.at.offset == offset {
                return i.at.line;
            }
        }
        if let SectionKind::Include { file: Some(f) } = &s.kind {
            if f.offset == offset {
                return f.line;
            }
        }
    }
    line
}

/// One placement of an expanded world.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    /// The section it places, as the instance line wrote it.
    pub target: String,
    pub pose: Pose,
    pub kind: PlacedKind,
    /// Which map file the instance line is in (0: the root), and where.
    pub file: usize,
    pub entry: u32,
    pub line: u32,
    pub offset: u32,
    pub lab_only: bool,
    pub children: Vec<Placed>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PlacedKind {
    /// A game object: its section, and the .MOD written in it.
    Model {
        modelfile: Option<String>,
    },
    Dropzone {
        pose: Pose,
    },
    /// A nested map: its placements are the children.
    Map,
    /// No section of that name.
    Unknown,
}

/// The root map section expanded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Expanded {
    pub root_section: String,
    pub placed: Vec<Placed>,
    /// Model placements, dropzones and LAB_ONLY placements, counted through every nesting.
    pub models: usize,
    pub dropzones: usize,
    pub lab_only: usize,
    /// Sections instanced but defined nowhere, lower case.
    pub unknown: BTreeSet<String>,
    /// Placements left out past [`MAX_PLACEMENTS`].
    pub left_out: usize,
}

/// Expand the root map section: nested maps become placements with children. A map that
/// places itself, directly or through others, is an error at the root line that starts the
/// chain; so is nesting past [`MAX_NESTING`].
pub fn expand(sections: &Sections<'_>, root: &MapSection) -> Result<Expanded, ParseError> {
    let out = Expanded {
        root_section: root.name.clone(),
        ..Default::default()
    };
    let mut expansion = Expansion {
        sections,
        stack: vec![root.key()],
        out,
        count: 0,
    };
    let placed = expansion.map(root, 0, None, false)?;
    Ok(Expanded {
        placed,
        ..expansion.out
    })
}

/// One step of the way from the root map to a nested placement: `[map] in path line N
/// places target`. Only an error spells the way out, so a placement costs no text.
struct Hop<'a> {
    map: &'a MapSection,
    /// The map file the section is in (None: the root map, which the error is in anyway).
    path: Option<&'a str>,
    instance: &'a Instance,
    up: Option<&'a Hop<'a>>,
}

impl Hop<'_> {
    /// The root map's instance line the way starts from.
    fn first(&self) -> &Instance {
        self.up.map_or(self.instance, |up| up.first())
    }

    fn route(&self) -> String {
        let here = match self.path {
            Some(path) => format!(
                "[{}] in {path} line {} places {}",
                self.map.name, self.instance.at.line, self.instance.target
            ),
            None => format!(
                "[{}] line {} places {}",
                self.map.name, self.instance.at.line, self.instance.target
            ),
        };
        match self.up {
            Some(up) => format!("{}, {here}", up.route()),
            None => here,
        }
    }
}

/// A map's expansion under way: the sections it draws on, the maps being expanded
/// (outermost first), what it has found and how many placements it has made.
struct Expansion<'s, 'a> {
    sections: &'s Sections<'a>,
    stack: Vec<String>,
    out: Expanded,
    count: usize,
}

impl Expansion<'_, '_> {
    /// The placements of `map` (in file `file`, reached by `up`; `lab`: inside a LAB_ONLY
    /// placement), each map it places expanded in turn.
    fn map(
        &mut self,
        map: &MapSection,
        file: usize,
        up: Option<&Hop<'_>>,
        lab: bool,
    ) -> Result<Vec<Placed>, ParseError> {
        let mut placed = Vec::with_capacity(
            MAX_PLACEMENTS
                .saturating_sub(self.count)
                .min(map.instances().len()),
        );
        let sections = self.sections;
        let path = &sections.files[file].0;
        for inst in map.instances() {
            if self.count >= MAX_PLACEMENTS {
                self.out.left_out += 1;
                continue;
            }
            self.count += 1;
            let lab_only = lab || inst.lab_only || map.lab_only;
            let hop = Hop {
                map,
                path: up.map(|_| path.as_str()),
                instance: inst,
                up,
            };
            let found = sections.get(&inst.target);
            let kind = found.map_or(PlacedKind::Unknown, |f| placed_kind(&f.section.kind));
            if kind == PlacedKind::Unknown {
                self.out.unknown.insert(inst.target.to_ascii_lowercase());
            }
            let mut p = Placed {
                target: inst.target.clone(),
                pose: inst.pose,
                kind,
                file,
                entry: inst.at.entry,
                line: inst.at.line,
                offset: inst.at.offset,
                lab_only,
                children: Vec::new(),
            };
            match (&p.kind, found) {
                (PlacedKind::Map, Some(f)) => {
                    let key = f.section.key();
                    nesting_allowed(&self.stack, &key, &hop)?;
                    self.stack.push(key);
                    p.children = self.map(f.section, f.file, Some(&hop), lab_only)?;
                    self.stack.pop();
                }
                (PlacedKind::Model { .. }, _) => self.out.models += 1,
                (PlacedKind::Dropzone { .. }, _) => self.out.dropzones += 1,
                _ => {}
            }
            if lab_only && !matches!(p.kind, PlacedKind::Map) {
                self.out.lab_only += 1;
            }
            placed.push(p);
        }
        Ok(placed)
    }
}

/// What a section placed is, by its kind (`Unknown` for one that places nothing).
fn placed_kind(kind: &SectionKind) -> PlacedKind {
    match kind {
        SectionKind::Model { modelfile } => PlacedKind::Model {
            modelfile: modelfile.as_ref().map(|m| m.value.clone()),
        },
        SectionKind::Dropzone { pose } => PlacedKind::Dropzone { pose: *pose },
        SectionKind::Map { .. } => PlacedKind::Map,
        _ => PlacedKind::Unknown,
    }
}

/// An error at the first placement of `hop`'s route if placing the map `key` there would
/// loop (`stack`: the maps being expanded, outermost first) or nest too deep.
fn nesting_allowed(stack: &[String], key: &str, hop: &Hop<'_>) -> Result<(), ParseError> {
    let refused = |why: String| {
        let root_inst = hop.first();
        Err(ParseError::new(
            root_inst.at.offset as usize,
            &format!("line {}", root_inst.at.line),
            why,
        ))
    };
    if stack.iter().any(|s| s == key) {
        let what = if stack.len() == 1 && key == stack[0] {
            "places itself"
        } else {
            "places a map that places it"
        };
        return refused(format!("[{}] {what}: {}", stack[0], hop.route()));
    }
    if stack.len() >= MAX_NESTING {
        return refused(format!(
            "maps nest deeper than {MAX_NESTING}: {}",
            hop.route()
        ));
    }
    Ok(())
}

/// One name written in the world that has several files in the archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, PartialOrd, Ord)]
pub struct Ambiguity {
    pub name: String,
    /// The file taken (the nearest), and the others.
    pub taken: String,
    pub candidates: Vec<String>,
}

/// What assembling found, for the info panel and `info --json`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct WorldReport {
    /// Lower-case names of what could not be found: sections, .MOD and .BGF files.
    pub missing: BTreeSet<String>,
    pub ambiguous: BTreeSet<Ambiguity>,
    /// .MOD files and the .BGF files they draw, as resolved (lower-case written name → path).
    pub resolved: Vec<(String, String)>,
    pub doors: usize,
    pub glowing: usize,
    /// What each instance line of the root map led to, by entry (the first time it was
    /// placed), for the inspector.
    #[serde(skip)]
    pub outcomes: HashMap<u32, String>,
    /// The scene node of every placement, in the order of a walk of the placements that
    /// visits a placement before the placements of its nested map.
    #[serde(skip)]
    pub placement_nodes: Vec<u32>,
}

/// The layers a world puts nodes on.
pub const LAYER_DROPZONES: &str = "dropzones";
pub const LAYER_DOORS: &str = "doors";
pub const LAYER_FX: &str = "fx";
pub const LAYER_LAB_ONLY: &str = "lab only";

/// A BGF as placed: taken into the world once, placed by every placement.
struct ModelTemplate {
    scene: Scene,
    absorbed: Absorbed,
}

/// The scene's index of each layer a world puts nodes on.
struct WorldLayers {
    dropzones: u32,
    doors: u32,
    fx: u32,
    lab_only: u32,
}

impl WorldLayers {
    fn of(scene: &mut Scene) -> WorldLayers {
        WorldLayers {
            dropzones: scene.layer(LAYER_DROPZONES),
            doors: scene.layer(LAYER_DOORS),
            fx: scene.layer(LAYER_FX),
            lab_only: scene.layer(LAYER_LAB_ONLY),
        }
    }
}

struct Builder<'a> {
    assets: &'a dyn WorldAssets,
    scene: Scene,
    report: WorldReport,
    /// By resolved path (one spelling per file).
    templates: HashMap<String, Option<Rc<ModelTemplate>>>,
    /// What each name resolved to, by the name as written (a world writes each name
    /// thousands of times; the report is made the first time).
    resolved: HashMap<String, Option<String>>,
    /// The bytes of each entry (a line) of the root map.
    entry_bytes: &'a dyn Fn(u32) -> Option<RecordBytes>,
    layers: WorldLayers,
}

impl<'a> Builder<'a> {
    fn new(
        assets: &'a dyn WorldAssets,
        scene: Scene,
        entry_bytes: &'a dyn Fn(u32) -> Option<RecordBytes>,
        layers: WorldLayers,
    ) -> Builder<'a> {
        Builder {
            assets,
            scene,
            report: WorldReport::default(),
            templates: HashMap::new(),
            resolved: HashMap::new(),
            entry_bytes,
            layers,
        }
    }

    fn resolve(&mut self, name: &str) -> Option<String> {
        if let Some(known) = self.resolved.get(name) {
            return known.clone();
        }
        let r = self.assets.resolve(name);
        match &r.file {
            None => {
                self.report.missing.insert(name.to_ascii_lowercase());
            }
            Some(file) => {
                if !r.also.is_empty() {
                    self.report.ambiguous.insert(Ambiguity {
                        name: name.to_ascii_lowercase(),
                        taken: file.clone(),
                        candidates: r.also.clone(),
                    });
                }
                if !self
                    .report
                    .resolved
                    .iter()
                    .any(|(n, _)| n.eq_ignore_ascii_case(name))
                {
                    self.report
                        .resolved
                        .push((name.to_ascii_lowercase(), file.clone()));
                }
            }
        }
        self.resolved.insert(name.to_string(), r.file.clone());
        r.file
    }

    /// The BGF at `path` taken into the world (once).
    fn template(&mut self, path: &str, glow: bool) -> Option<Rc<ModelTemplate>> {
        if let Some(t) = self.templates.get(path) {
            return t.clone();
        }
        let t = self.assets.model_scene(path).map(|mut scene| {
            let absorbed = self.scene.absorb(&mut scene, glow);
            Rc::new(ModelTemplate { scene, absorbed })
        });
        if t.is_none() {
            self.report
                .missing
                .insert(crate::file_name(path).to_ascii_lowercase());
        }
        self.templates.insert(path.to_string(), t.clone());
        t
    }

    /// Place `p` under `parent`; `path` is where it is in the tree of placements, each step
    /// its section and which of its siblings of that section it is (`block[1]/bldg[0]`).
    fn place(&mut self, parent: u32, p: &Placed, path: &str) {
        let record = (p.file == 0).then(|| (self.entry_bytes)(p.entry)).flatten();
        let transform = Transform {
            translation: p.pose.translation,
            rotation: p.pose.quat().to_array(),
            scale: [1.0; 3],
        };
        let layer = p.lab_only.then_some(self.layers.lab_only);
        let node = self.scene.add_node(
            Some(parent),
            Node {
                name: Some(p.target.clone()),
                transform,
                record,
                layer,
                ..Default::default()
            },
        );
        self.report.placement_nodes.push(node);
        let first = p.file == 0 && !self.report.outcomes.contains_key(&p.entry);
        // What the instance line led to, said the first time it is placed (the inspector's).
        let outcome = match &p.kind {
            PlacedKind::Map => {
                for (c, step) in p.children.iter().zip(placement_steps(&p.children)) {
                    self.place(node, c, &format!("{path}/{step}"));
                }
                first.then(|| format!("→ map [{}], {} placements", p.target, p.children.len()))
            }
            PlacedKind::Dropzone { pose } => {
                let n = self.place_dropzone(node, &p.target, pose);
                first.then(|| format!("→ dropzone {n}"))
            }
            PlacedKind::Model { modelfile } => {
                self.place_model(node, p, modelfile.as_deref(), path, first)
            }
            PlacedKind::Unknown => {
                first.then(|| format!("→ no section [{}] in the map or its includes", p.target))
            }
        };
        if let Some(outcome) = outcome {
            self.report.outcomes.insert(p.entry, outcome);
        }
    }

    /// A dropzone's ring under `node` at its own `pose`, and a viewpoint from it. → its
    /// number (from 1).
    fn place_dropzone(&mut self, node: u32, target: &str, pose: &Pose) -> usize {
        let own = Transform {
            translation: pose.translation,
            rotation: pose.quat().to_array(),
            scale: [1.0; 3],
        };
        let dz = self.scene.add_node(
            Some(node),
            Node {
                name: Some(target.to_string()),
                transform: own,
                marker: Some(Marker::Dropzone),
                layer: Some(self.layers.dropzones),
                ..Default::default()
            },
        );
        let n = self.scene.viewpoints.len() + 1;
        self.scene.viewpoints.push(Viewpoint {
            name: format!("dropzone {n}: {target}"),
            node: dz,
        });
        n
    }

    /// A game object's models under `node`, from the .MOD `modelfile` names. → what the
    /// instance line led to (the inspector's), if this is its `first` placement.
    fn place_model(
        &mut self,
        node: u32,
        p: &Placed,
        modelfile: Option<&str>,
        path: &str,
        first: bool,
    ) -> Option<String> {
        match modelfile.map(|m| (m, self.resolve(m))) {
            None => {
                self.report.missing.insert(p.target.to_ascii_lowercase());
                first.then(|| format!("→ [{}] names no modelfile", p.target))
            }
            Some((m, None)) => first.then(|| format!("→ {m} is not in the archive")),
            Some((_, Some(mod_path))) => {
                let assets = self.assets;
                match assets.game_object(&mod_path) {
                    Some(object) => {
                        self.place_object(node, object, path);
                        first.then(|| {
                            format!(
                                "→ {mod_path}: {}",
                                object
                                    .video
                                    .iter()
                                    .map(|v| v.file.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )
                        })
                    }
                    None => {
                        if assets.known(&mod_path) {
                            self.report
                                .missing
                                .insert(crate::file_name(&mod_path).to_ascii_lowercase());
                        }
                        first.then(|| format!("→ {mod_path} could not be read"))
                    }
                }
            }
        }
    }

    /// A game object's video objects under `node`, with their doors moving.
    fn place_object(&mut self, node: u32, object: &GameObject, path: &str) {
        let assets = self.assets;
        let subs = object
            .subsystems
            .as_ref()
            .and_then(|s| self.resolve(&s.value))
            .and_then(|p| assets.subsystems(&p));
        let mut is_door = false;
        for v in &object.video {
            let glow = v.stem.starts_with("laz");
            let Some(bgf) = self.resolve(&v.file) else {
                continue;
            };
            let layer = glow.then_some(self.layers.fx);
            let name = v.node.clone().unwrap_or_else(|| v.stem.clone());
            let leaf = self.scene.add_node(
                Some(node),
                Node {
                    name: Some(name),
                    layer,
                    ..Default::default()
                },
            );
            if let Some(t) = self.template(&bgf, glow) {
                self.scene.instantiate(Some(leaf), &t.scene, &t.absorbed);
                if glow {
                    self.glow(&t.absorbed);
                }
            }
            for door in subs
                .iter()
                .flat_map(|s| s.doors())
                .filter(|d| d.video_object.as_deref() == Some(v.stem.as_str()))
            {
                if let Some(m) = door.door() {
                    let keys = m.keys();
                    self.scene.clips.push(Clip {
                        name: format!("{} @ {path}", door.name),
                        duration: m.period(),
                        repeat: Repeat::Loop,
                        tracks: vec![Track {
                            target: Target::Translation(leaf),
                            times: keys.iter().map(|k| k.0).collect(),
                            values: keys.iter().flat_map(|k| k.1).collect(),
                        }],
                    });
                    is_door = true;
                    self.report.doors += 1;
                }
            }
        }
        if is_door {
            self.scene.nodes[node as usize]
                .layer
                .get_or_insert(self.layers.doors);
        }
    }

    /// An approximate pulse on a laser drill's own materials (the game drives it; no data).
    fn glow(&mut self, absorbed: &Absorbed) {
        let mut materials = absorbed.materials.clone();
        materials.sort_unstable();
        materials.dedup();
        for m in materials {
            if self
                .scene
                .clips
                .iter()
                .flat_map(|c| &c.tracks)
                .any(|t| t.target == Target::Glow(m))
            {
                continue;
            }
            self.report.glowing += 1;
            self.scene.clips.push(Clip {
                name: "laser glow (approximation)".into(),
                duration: 1.2,
                repeat: Repeat::Loop,
                tracks: vec![Track {
                    target: Target::Glow(m),
                    times: vec![0.0, 0.6, 1.2],
                    values: vec![0.1, 0.9, 0.1],
                }],
            });
        }
    }
}

/// Each placement of a list as a step of a path: its section and which of the list's
/// placements of that section it is (`bldg[0]`, `bldg[1]`).
fn placement_steps(placed: &[Placed]) -> Vec<String> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    placed
        .iter()
        .map(|p| {
            let k = seen.entry(p.target.as_str()).or_default();
            *k += 1;
            format!("{}[{}]", p.target, *k - 1)
        })
        .collect()
}

/// The expanded world as a scene. `entry_bytes` gives the bytes of an entry (a line) of the
/// root map, so that a placement picked in 3D finds its line; `root` the root section's.
pub fn build_scene(
    name: &str,
    expanded: &Expanded,
    assets: &dyn WorldAssets,
    entry_bytes: &dyn Fn(u32) -> Option<RecordBytes>,
    root: Option<RecordBytes>,
) -> (Scene, WorldReport) {
    let mut scene = Scene {
        name: name.to_string(),
        ..Default::default()
    };
    let layers = WorldLayers::of(&mut scene);
    let root = scene.add_node(
        None,
        Node {
            name: Some(format!("[{}]", expanded.root_section)),
            record: root,
            ..Default::default()
        },
    );
    let mut b = Builder::new(assets, scene, entry_bytes, layers);
    for (p, step) in expanded
        .placed
        .iter()
        .zip(placement_steps(&expanded.placed))
    {
        b.place(root, p, &step);
    }
    b.report.missing.extend(expanded.unknown.iter().cloned());
    (b.scene, b.report)
}

/// A game object alone (a .MOD opened by itself) as a scene.
pub fn object_scene(
    name: &str,
    object: &GameObject,
    assets: &dyn WorldAssets,
) -> (Scene, WorldReport) {
    let mut scene = Scene {
        name: name.to_string(),
        ..Default::default()
    };
    let layers = WorldLayers::of(&mut scene);
    let root = scene.add_node(
        None,
        Node {
            name: Some(name.to_string()),
            ..Default::default()
        },
    );
    // (A game object places models of other files only: no line of its own is picked.)
    let mut b = Builder::new(assets, scene, &|_| None, layers);
    b.place_object(root, object, name);
    (b.scene, b.report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pods::world::ini::IniFile;

    /// A world with nothing around it: no includes resolve, no files were read.
    struct Alone;
    impl WorldAssets for Alone {
        fn resolve(&self, _: &str) -> Resolution {
            Resolution::default()
        }
        fn map(&self, _: &str) -> Option<&MapFile> {
            None
        }
        fn game_object(&self, _: &str) -> Option<&GameObject> {
            None
        }
        fn subsystems(&self, _: &str) -> Option<&SubsystemFile> {
            None
        }
        fn model_scene(&self, _: &str) -> Option<Scene> {
            None
        }
        fn known(&self, _: &str) -> bool {
            false
        }
    }

    /// The .MOD files of every model placement the expansion makes, lower case.
    fn expanded_model_files(placed: &[Placed], out: &mut BTreeSet<String>) {
        for p in placed {
            if let PlacedKind::Model { modelfile: Some(m) } = &p.kind {
                out.insert(m.to_ascii_lowercase());
            }
            expanded_model_files(&p.children, out);
        }
    }

    #[test]
    fn a_world_needs_the_model_files_its_expansion_places_found_without_expanding_it() {
        // Every world of the demo, and maps that nest, repeat and spell names in other cases.
        let mut maps: Vec<(String, Vec<u8>)> = crate::demo::demo_files()
            .into_iter()
            .filter(|(p, _)| p.ends_with(".MAP"))
            .collect();
        maps.push(("NEST.MAP".into(), b"[nest]\ntype=map\ninstance=Row 0 0 0 0 0 0\ninstance=row 9 0 0 0 0 0\ninstance=lamp 0 0 0 0 0 0\n[row]\ntype=map\ninstance=BOX 0 0 0 0 0 0\ninstance=box 1 0 0 0 0 0\ninstance=Crate 2 0 0 0 0 0\n[box]\ntype=model\nmodelfile=box.mod\n[crate]\ntype=model\nmodelfile=BOX.MOD\n[lamp]\ntype=model\nmodelfile=lamp.mod\n[unused]\ntype=model\nmodelfile=unused.mod\n".to_vec()));
        assert!(
            maps.len() >= 4,
            "the demo's worlds: {:?}",
            maps.iter().map(|(p, _)| p).collect::<Vec<_>>()
        );
        for (path, bytes) in &maps {
            let map = MapFile::read(&IniFile::parse(bytes).unwrap());
            let stem = crate::file_name(path)
                .split('.')
                .next()
                .unwrap()
                .to_string();
            let sections = gather(path, &map, &Alone).unwrap();
            let Some(root) = map.root_section(&stem) else {
                continue;
            };
            let placed: Vec<String> = sections
                .model_files_placed(root)
                .iter()
                .map(|m| m.to_ascii_lowercase())
                .collect();
            let mut expanded = BTreeSet::new();
            expanded_model_files(&expand(&sections, root).unwrap().placed, &mut expanded);
            assert_eq!(
                placed.iter().cloned().collect::<BTreeSet<_>>(),
                expanded,
                "{path}"
            );
            assert_eq!(
                placed.len(),
                expanded.len(),
                "{path}: each file once, whatever its case: {placed:?}"
            );
        }
    }

    #[test]
    fn a_map_that_places_itself_still_says_what_it_needs_and_its_expansion_is_the_error() {
        let bytes = b"[outer]\ntype=map\ninstance=inner 0 0 0 0 0 0\n[inner]\ntype=map\ninstance=outer 0 0 0 0 0 0\ninstance=box 0 0 0 0 0 0\n[box]\ntype=model\nmodelfile=box.mod\n";
        let map = MapFile::read(&IniFile::parse(bytes).unwrap());
        let sections = gather("OUTER.MAP", &map, &Alone).unwrap();
        let root = map.root_section("OUTER").unwrap();
        assert_eq!(sections.model_files_placed(root), vec!["box.mod"]);
        let e = expand(&sections, root).unwrap_err();
        assert_eq!(e.message, "[outer] places a map that places it: [outer] line 3 places inner, [inner] in OUTER.MAP line 6 places outer");
    }
}
