//! The archive: its paths (case-insensitive, as the DOS-era discs were), "nearest first"
//! resolution of the names files refer to, the files read as other files' assets, the
//! reference graph ("uses" / "used by"), and the one open sequence every front end uses:
//! read → parse → read what it refers to → build the scene.

use crate::formats::assets::Assets;
pub use crate::formats::assets::{file_name, Resolution};
use crate::formats::registry::{self, Kind, Purpose};
use crate::formats::{Described, Document, Found, InfoRow, Reference};
use crate::scene::Scene;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// Every path of an archive, indexed by lower-case path and lower-case file name.
#[derive(Debug, Clone, Default)]
pub struct ArchiveIndex {
    paths: Vec<String>,
    /// What each file is, where the front end typed it (by its first bytes).
    kinds: Vec<Option<Kind>>,
    /// Each file's size as stored, where the front end knows it (a picked file's is looked
    /// up in the background): empty until sizes are given.
    sizes: Vec<Option<u64>>,
    by_path: HashMap<String, usize>,
    by_name: HashMap<String, Vec<usize>>,
}

fn dir_parts(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path
        .split(['/', '\\'])
        .map(str::to_ascii_lowercase)
        .collect();
    parts.pop();
    parts
}

impl ArchiveIndex {
    pub fn new<S: Into<String>>(paths: impl IntoIterator<Item = S>) -> ArchiveIndex {
        ArchiveIndex::with_kinds(paths.into_iter().map(|p| (p, None)))
    }

    pub fn with_kinds<S: Into<String>>(
        files: impl IntoIterator<Item = (S, Option<Kind>)>,
    ) -> ArchiveIndex {
        let mut index = ArchiveIndex::default();
        for (p, kind) in files {
            let p: String = p.into();
            let i = index.paths.len();
            index.by_path.entry(p.to_ascii_lowercase()).or_insert(i);
            index
                .by_name
                .entry(file_name(&p).to_ascii_lowercase())
                .or_default()
                .push(i);
            index.paths.push(p);
            index.kinds.push(kind);
        }
        index
    }

    /// A listing as the page sends it to a wasm module: the paths one after another in
    /// `paths`, each as long as `lengths` says (in UTF-16 units, as JS counts), and each kind
    /// as its number (`Kind::number`); one string crosses into wasm, not 20,000.
    pub fn from_joined(paths: &str, lengths: &[u32], kinds: &[u8]) -> ArchiveIndex {
        let paths = crate::wire::split_js_joined(paths, lengths);
        ArchiveIndex::with_kinds(
            paths.into_iter().zip(
                kinds
                    .iter()
                    .map(|&n| Kind::numbered(n))
                    .chain(std::iter::repeat(None)),
            ),
        )
    }

    /// Kinds as the page sends them (numbers, in the listing's order): `set_kinds`.
    pub fn set_kind_numbers(&mut self, kinds: &[u8]) -> bool {
        self.set_kinds(kinds.iter().map(|&n| Kind::numbered(n)))
    }

    /// New kinds for the same paths, in the same order (the front end typed some files by
    /// their content): the index of 20,000 paths is kept, not rebuilt. False, and nothing
    /// changed, when there is not exactly one kind per path.
    pub fn set_kinds(&mut self, kinds: impl IntoIterator<Item = Option<Kind>>) -> bool {
        self.one_each(kinds).map(|k| self.kinds = k).is_some()
    }

    /// `items` when there is exactly one per path (no more are read than that).
    fn one_each<T>(&self, items: impl IntoIterator<Item = T>) -> Option<Vec<T>> {
        let items: Vec<T> = items.into_iter().take(self.paths.len() + 1).collect();
        (items.len() == self.paths.len()).then_some(items)
    }

    /// The files' sizes as stored, in the listing's order (None where not known). False,
    /// and nothing changed, when there is not exactly one per path.
    pub fn set_sizes(&mut self, sizes: impl IntoIterator<Item = Option<u64>>) -> bool {
        self.one_each(sizes).map(|s| self.sizes = s).is_some()
    }

    /// Sizes as the page sends them (a number a file, in the listing's order; NaN where it
    /// does not know one yet): `set_sizes`.
    pub fn set_size_numbers(&mut self, sizes: &[f64]) -> bool {
        self.set_sizes(
            sizes
                .iter()
                .map(|&s| (s.is_finite() && s >= 0.0).then_some(s as u64)),
        )
    }

    /// The size of `path` as stored, where known.
    pub fn size(&self, path: &str) -> Option<u64> {
        self.position(path)
            .and_then(|i| self.sizes.get(i).copied().flatten())
    }

    /// The files with extension `extension` (lower case) of size `size` as stored, those
    /// sharing the most leading folders with `from` first (then by path).
    pub fn sized(&self, from: &str, extension: &str, size: u64) -> Vec<&str> {
        let from = dir_parts(from);
        let mut found: Vec<(usize, &str)> = self
            .sizes
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                **s == Some(size) && crate::formats::extension(&self.paths[*i]) == extension
            })
            .map(|(i, _)| {
                let dirs = dir_parts(&self.paths[i]);
                let shared = from.iter().zip(&dirs).take_while(|(a, b)| a == b).count();
                (shared, self.paths[i].as_str())
            })
            .collect();
        found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        found.into_iter().map(|(_, p)| p).collect()
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// The archive's spelling of `path`, matched without regard to case.
    pub fn find(&self, path: &str) -> Option<&str> {
        self.position(path).map(|i| self.paths[i].as_str())
    }

    fn position(&self, path: &str) -> Option<usize> {
        self.by_path.get(&path.to_ascii_lowercase()).copied()
    }

    pub fn kind(&self, path: &str) -> Option<Kind> {
        self.position(path).and_then(|i| self.kinds[i])
    }

    /// Every file called `name` (any case, folders in `name` ignored), nearest to `from`
    /// first: the file sharing the most leading folders with `from` is in the same game
    /// tree; ties are ordered by path.
    pub fn nearest(&self, from: &str, name: &str) -> Vec<&str> {
        let from = dir_parts(from);
        let mut found: Vec<(usize, &str)> = self
            .by_name
            .get(&file_name(name).to_ascii_lowercase())
            .into_iter()
            .flatten()
            .map(|&i| {
                let dirs = dir_parts(&self.paths[i]);
                let shared = from.iter().zip(&dirs).take_while(|(a, b)| a == b).count();
                (shared, self.paths[i].as_str())
            })
            .collect();
        found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        found.into_iter().map(|(_, p)| p).collect()
    }

    /// Resolve a reference made by the file at `from`: the first of `names` that the archive
    /// has, nearest first; the other files of that name are listed as farther candidates.
    pub fn resolve(&self, from: &str, names: &[String]) -> Resolution {
        for n in names {
            let found = self.nearest(from, n);
            if let Some((first, rest)) = found.split_first() {
                return Resolution {
                    file: Some(first.to_string()),
                    also: rest.iter().map(|s| s.to_string()).collect(),
                };
            }
        }
        Resolution::default()
    }
}

/// A file read as another file's asset: its document, or why it could not be used.
type Asset = Result<Rc<dyn Document>, String>;

/// One reference of one file, resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Use {
    pub reference: Reference,
    pub resolution: Resolution,
}

/// The archive's reference graph, built once from every file's references and added to as
/// files are opened: "uses" and "used by" are look-ups, not rescans.
#[derive(Debug, Default)]
pub struct RefGraph {
    /// File index → its resolved references (present once the file has been read).
    uses: HashMap<usize, Vec<Use>>,
    /// Target file index → (user file index, position in the user's references).
    users: HashMap<usize, Vec<(usize, usize)>>,
}

/// The open archive.
#[derive(Default)]
pub struct Archive {
    pub index: ArchiveIndex,
    assets: HashMap<String, Asset>,
    refs: RefGraph,
    /// False for a file opened on its own (`info` without `--root`): nothing is resolved.
    pub resolves: bool,
    /// How many records of each file use each entry of a table it indexes, by (lower-case
    /// path, table), once read: `table_user_rows` reads each file once.
    table_uses: HashMap<(String, String), TableUses>,
    /// The game's variables as the person set them (`--set`), which scripts read.
    pub game_state: Vec<crate::formats::GameVariable>,
}

/// What a file's records are ("polygon") and how many use each entry of a table: (entry,
/// records), as `Document::table_uses` gives them.
type TableUses = (&'static str, Vec<(u32, u32)>);

/// Where the open sequence gets bytes: the disk for the CLI, the page's files (or a server)
/// in the browser, memory in tests.
#[allow(async_fn_in_trait)]
pub trait FileSource {
    /// The bytes of an archive path, or why they cannot be read.
    async fn read(&self, path: &str) -> Result<Vec<u8>, String>;
    /// A clock in milliseconds, for the open's timings.
    fn now_ms(&self) -> f64 {
        0.0
    }
}

/// An archive held in memory (tests, the demo, benches).
#[derive(Debug, Default, Clone)]
pub struct MemorySource {
    /// Bytes by lower-case path.
    pub files: BTreeMap<String, Vec<u8>>,
    /// The paths as spelled.
    pub paths: Vec<String>,
}

impl MemorySource {
    pub fn new(files: impl IntoIterator<Item = (String, Vec<u8>)>) -> MemorySource {
        let mut source = MemorySource::default();
        for (p, b) in files {
            source.files.insert(p.to_ascii_lowercase(), b);
            source.paths.push(p);
        }
        source
    }
    /// Its archive, every file's size known.
    pub fn archive(&self) -> Archive {
        let mut index = ArchiveIndex::new(self.paths.iter().cloned());
        index.set_sizes(self.paths.iter().map(|p| {
            self.files
                .get(&p.to_ascii_lowercase())
                .map(|b| b.len() as u64)
        }));
        Archive::new(index)
    }
}

impl FileSource for MemorySource {
    async fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        self.files
            .get(&path.to_ascii_lowercase())
            .cloned()
            .ok_or_else(|| "no such file".to_string())
    }
}

/// Where the time of one open went, in ms (zero where the source has no clock).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct OpenTimings {
    pub read_ms: f64,
    /// Parse: records, model, inspector view and info.
    pub parse_ms: f64,
    /// Reading and parsing what the file refers to.
    pub assets_ms: f64,
    /// Resolving materials and textures, triangulating into the scene.
    pub build_ms: f64,
}

/// A file opened by [`open_file`]: its document and, when it draws one, its scene.
pub struct Opened {
    pub path: String,
    pub document: Box<dyn Document>,
    pub scene: Option<Scene>,
    /// What building the scene found, which describing the document reads.
    pub found: Found,
    /// Assets that could not be read at all ("path: why").
    pub unreadable: Vec<String>,
    /// What the scene shows differently from what the file asks, and why (a textured
    /// material on a vertex format without UVs), for the info panel.
    pub notes: Vec<String>,
    pub timings: OpenTimings,
}

impl Opened {
    /// The document with what its scene's build found: what the info pane, the inspector,
    /// `info` and `inspect` show.
    pub fn described(&self) -> Described<'_> {
        Described {
            document: &*self.document,
            found: &self.found,
        }
    }

    /// What comparing reads of it (opened to be shown: its records are its inspector's).
    pub fn side(&self) -> crate::diff::Side<'_> {
        crate::diff::Side::of(self.described(), self.scene.as_ref())
    }
}

impl Archive {
    pub fn new(index: ArchiveIndex) -> Archive {
        Archive {
            index,
            assets: HashMap::new(),
            refs: RefGraph::default(),
            resolves: true,
            table_uses: HashMap::new(),
            game_state: Vec::new(),
        }
    }

    /// An archive of one file: references resolve nowhere.
    pub fn detached() -> Archive {
        Archive {
            resolves: false,
            ..Default::default()
        }
    }

    /// Forget every asset read and what refers to what, keeping the listing and the game
    /// state: the next open reads all it needs again (so that what it read can be told;
    /// the thumbnails keep each drawing with the files it was drawn from). Setting a
    /// 20,000-file listing again to the same end took 14 ms in the page.
    pub fn forget_reads(&mut self) {
        self.assets.clear();
        self.refs = RefGraph::default();
        self.table_uses.clear();
    }

    /// Whether `path` has been read as an asset (successfully or not).
    pub fn known(&self, path: &str) -> bool {
        self.assets.contains_key(&path.to_ascii_lowercase())
    }

    /// The document of an asset that was read and parsed.
    pub fn get(&self, path: &str) -> Option<&dyn Document> {
        match self.assets.get(&path.to_ascii_lowercase()) {
            Some(Ok(d)) => Some(&**d),
            _ => None,
        }
    }

    /// Why an asset could not be used, if it could not.
    pub fn failure(&self, path: &str) -> Option<&str> {
        match self.assets.get(&path.to_ascii_lowercase()) {
            Some(Err(e)) => Some(e),
            _ => None,
        }
    }

    pub fn resolve(&self, from: &str, names: &[String]) -> Resolution {
        if !self.resolves {
            return Resolution::default();
        }
        self.index.resolve(from, names)
    }

    /// Take an asset's bytes (or why they could not be read). A file that does not parse
    /// is remembered with the reason and not asked for again.
    pub fn provide(&mut self, path: &str, bytes: Result<Vec<u8>, String>) {
        let asset = match bytes {
            Ok(bytes) => {
                let doc = registry::open(path, bytes, Purpose::Asset);
                self.record_references(path, &*doc);
                match doc.error() {
                    Some(e) => Err(format!("{path}: {e}")),
                    None => Ok(Rc::from(doc)),
                }
            }
            Err(why) => Err(format!("{path}: {why}")),
        };
        self.assets.insert(path.to_ascii_lowercase(), asset);
    }

    /// Add a file's references to the graph (replacing what it had).
    pub fn record_references(&mut self, path: &str, doc: &dyn Document) {
        let Some(user) = self.index.position(path) else {
            return;
        };
        // Now that the content has been read, the kind is known for sure.
        self.index.kinds[user] = Some(doc.kind());
        let refs = if doc.error().is_some() {
            Vec::new()
        } else {
            doc.references()
        };
        let uses: Vec<Use> = refs
            .into_iter()
            .map(|r| Use {
                resolution: self.resolve(path, &r.names),
                reference: r,
            })
            .collect();
        if let Some(old) = self.refs.uses.remove(&user) {
            for u in old {
                if let Some(t) = u
                    .resolution
                    .file
                    .as_deref()
                    .and_then(|f| self.index.position(f))
                {
                    if let Some(list) = self.refs.users.get_mut(&t) {
                        list.retain(|&(by, _)| by != user);
                    }
                }
            }
        }
        for (k, u) in uses.iter().enumerate() {
            if let Some(t) = u
                .resolution
                .file
                .as_deref()
                .and_then(|f| self.index.position(f))
            {
                self.refs.users.entry(t).or_default().push((user, k));
            }
        }
        self.refs.uses.insert(user, uses);
    }

    /// Files whose references are not in the graph yet and may have some.
    pub fn unscanned(&self) -> Vec<String> {
        (0..self.index.len())
            .filter(|i| !self.refs.uses.contains_key(i))
            .filter(|&i| self.index.kinds[i].is_none_or(|k| !k.refers_to().is_empty()))
            .map(|i| self.index.paths[i].clone())
            .collect()
    }

    /// What the file at `path` refers to, resolved (None until it has been read).
    pub fn uses(&self, path: &str) -> Option<&[Use]> {
        self.index
            .position(path)
            .and_then(|i| self.refs.uses.get(&i))
            .map(Vec::as_slice)
    }

    /// The files whose references lead to `path`, with the reference each made.
    pub fn used_by(&self, path: &str) -> Vec<(&str, &Use)> {
        let Some(t) = self.index.position(path) else {
            return Vec::new();
        };
        let mut out: Vec<(&str, &Use)> = self
            .refs
            .users
            .get(&t)
            .into_iter()
            .flatten()
            .filter_map(|&(u, k)| {
                Some((
                    self.index.paths[u].as_str(),
                    self.refs.uses.get(&u)?.get(k)?,
                ))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(b.0));
        out
    }

    /// "Used by" as info rows. For a file that exports named items (a library's materials),
    /// one row per item with the files that take it from this very file; otherwise the
    /// users per kind, then their users ("via" the reference that leads on). Call after
    /// [`scan_references`].
    pub fn used_by_rows(&self, path: &str, exports: &[String]) -> Vec<InfoRow> {
        let users = self.used_by(path);
        if !exports.is_empty() {
            return item_users_rows(&users, exports);
        }
        let kind_of = |p: &str| self.index.kind(p).unwrap_or_else(|| Kind::sniff(p, &[], 0));
        let kind = kind_of(path);
        let mut rows = Vec::new();
        for k in kind.referred_by() {
            let direct: Vec<&str> = users
                .iter()
                .map(|(f, _)| *f)
                .filter(|f| kind_of(f) == k)
                .collect();
            rows.push(users_row(
                format!("used by {}s", k.label()),
                direct
                    .iter()
                    .map(|s| (s.to_string(), String::new()))
                    .collect(),
            ));
            for k2 in k.referred_by().filter(|k2| *k2 != k) {
                let mut via: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
                for d in &direct {
                    for (f, u) in self.used_by(d) {
                        if kind_of(f) == k2 {
                            via.entry(f).or_default().push(&u.reference.written);
                        }
                    }
                }
                let entries = via
                    .into_iter()
                    .map(|(f, mut names)| {
                        names.sort();
                        names.dedup();
                        (f.to_string(), format!(" (via {})", names.join(", ")))
                    })
                    .collect();
                rows.push(users_row(format!("used by {}s", k2.label()), entries));
            }
        }
        rows
    }
}

/// For a file that exports named items (a library's materials), a row per item with the
/// files among `users` that take it from this very file.
fn item_users_rows(users: &[(&str, &Use)], exports: &[String]) -> Vec<InfoRow> {
    exports
        .iter()
        .map(|item| {
            let mut files: Vec<&str> = users
                .iter()
                .filter(|(_, u)| {
                    u.reference
                        .item
                        .as_deref()
                        .is_some_and(|i| i.eq_ignore_ascii_case(item))
                })
                .map(|(f, _)| *f)
                .collect();
            files.dedup();
            match files.is_empty() {
                true => InfoRow::warning(format!("used: {item}"), "nothing in this archive"),
                false => InfoRow::new(format!("used: {item}"), files.join(", "))
                    .with_links(files.iter().map(|f| f.to_string()).collect()),
            }
        })
        .collect()
}

/// A row of the files that use one: `entries` are (path, what follows it), the paths links.
fn users_row(label: String, mut entries: Vec<(String, String)>) -> InfoRow {
    entries.sort();
    entries.dedup();
    match entries.is_empty() {
        true => InfoRow::warning(label, "none in this archive"),
        false => {
            let text = entries
                .iter()
                .map(|(f, rest)| format!("{f}{rest}"))
                .collect::<Vec<_>>()
                .join(", ");
            InfoRow::new(label, text).with_links(entries.into_iter().map(|(f, _)| f).collect())
        }
    }
}

/// What documents ask of the archive (formats::Assets): the archive's own answers.
impl Assets for Archive {
    fn resolves(&self) -> bool {
        self.resolves
    }
    fn resolve(&self, from: &str, names: &[String]) -> Resolution {
        Archive::resolve(self, from, names)
    }
    fn get(&self, path: &str) -> Option<&dyn Document> {
        Archive::get(self, path)
    }
    fn failure(&self, path: &str) -> Option<&str> {
        Archive::failure(self, path)
    }
    fn known(&self, path: &str) -> bool {
        Archive::known(self, path)
    }
    fn game_state(&self) -> &[crate::formats::GameVariable] {
        &self.game_state
    }
    fn files_sized(&self, from: &str, extension: &str, size: u64) -> Vec<String> {
        if !self.resolves {
            return Vec::new();
        }
        self.index
            .sized(from, extension, size)
            .into_iter()
            .map(str::to_string)
            .collect()
    }
    fn size(&self, path: &str) -> Option<u64> {
        self.index.size(path)
    }
}

/// Read every file that may refer to others and is not in the reference graph yet, so
/// that "used by" can be answered. Unreadable files are skipped (they use nothing).
pub async fn scan_references(archive: &RefCell<Archive>, source: &impl FileSource) -> usize {
    let todo = archive.borrow().unscanned();
    for path in &todo {
        let refs_doc = match source.read(path).await {
            Ok(bytes) => registry::open(path, bytes, Purpose::Asset),
            Err(_) => {
                crate::formats::common::bytes::open(path, Vec::new(), Kind::UNKNOWN, Purpose::Asset)
            }
        };
        archive.borrow_mut().record_references(path, &*refs_doc);
    }
    todo.len()
}

/// The textures an opened file gives the texture gallery: its picture, or the textures its
/// scene decodes from the file itself (with the materials that sample each).
pub fn texture_cards(opened: &Opened) -> Vec<crate::gallery::TextureCard> {
    use crate::gallery::{thumbnail, used_bounds, TextureCard, THUMBNAIL_SIDE};
    let doc = &*opened.document;
    if let Some(picture) = doc.image() {
        let format = doc.image_format();
        return vec![TextureCard {
            path: opened.path.clone(),
            texture: None,
            width: picture.width,
            height: picture.height,
            format,
            materials: Vec::new(),
            used: None,
            thumbnail: thumbnail(picture, THUMBNAIL_SIDE),
        }];
    }
    let Some(scene) = &opened.scene else {
        return Vec::new();
    };
    scene
        .textures
        .iter()
        .enumerate()
        .filter(|(_, t)| t.is_own())
        .map(|(i, t)| {
            let materials = scene
                .materials
                .iter()
                .filter(|m| m.texture == Some(i as u32))
                .filter_map(|m| m.name.clone())
                .collect();
            // What the triangles sample of it: the rest of a VRAM page is other files'.
            let sampling = |m: &Option<crate::scene::MaterialId>| {
                m.and_then(|m| scene.materials.get(m as usize))
                    .is_some_and(|m| m.texture == Some(i as u32))
            };
            let uvs = scene
                .meshes
                .iter()
                .flat_map(|mesh| &mesh.primitives)
                .filter(|p| sampling(&p.material))
                .filter_map(|p| {
                    p.uvs.as_ref().map(|uv| {
                        p.indices
                            .iter()
                            .filter_map(move |&k| uv.get(k as usize).copied())
                    })
                })
                .flatten();
            let used = used_bounds(uvs, t.texels.width, t.texels.height);
            let shown = used.map_or_else(
                || t.texels.clone(),
                |[x, y, w, h]| crate::texture::crop(&t.texels, x, y, w, h),
            );
            TextureCard {
                path: opened.path.clone(),
                texture: Some(i),
                width: t.texels.width,
                height: t.texels.height,
                format: t.name.clone().unwrap_or_else(|| format!("texture {i}")),
                materials,
                used,
                thumbnail: thumbnail(&shown, THUMBNAIL_SIDE),
            }
        })
        .collect()
}

/// Who uses the picture file `path`: the files that name it (a library, a model with a
/// texture of its own), the materials of those libraries whose texture is it, and the files
/// that take those materials. Reads the archive's references once (`scan_references`) and
/// opens the libraries that name it.
pub async fn texture_users(
    archive: &RefCell<Archive>,
    source: &impl FileSource,
    path: &str,
) -> crate::gallery::TextureUsers {
    scan_references(archive, source).await;
    let direct: Vec<String> = archive
        .borrow()
        .used_by(path)
        .into_iter()
        .map(|(f, _)| f.to_string())
        .collect();
    let mut out = crate::gallery::TextureUsers {
        materials: Vec::new(),
        files: direct.clone(),
    };
    for user in direct {
        let Ok(opened) = open_file(archive, source, &user).await else {
            continue;
        };
        let Some(cards) = opened.described().gallery() else {
            continue;
        };
        let names: Vec<String> = cards
            .iter()
            .filter(|c| {
                c.texture_file
                    .as_deref()
                    .is_some_and(|f| f.eq_ignore_ascii_case(path))
            })
            .map(|c| c.name.clone())
            .collect();
        let lib = crate::formats::file_name(&user)
            .split('.')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        out.materials
            .extend(names.iter().map(|n| format!("{lib}:{n}")));
        let archive = archive.borrow();
        for (f, u) in archive.used_by(&user) {
            if u.reference
                .item
                .as_deref()
                .is_some_and(|i| names.iter().any(|n| n.eq_ignore_ascii_case(i)))
            {
                out.files.push(f.to_string());
            }
        }
    }
    out.files.sort();
    out.files.dedup();
    out.materials.sort();
    out.materials.dedup();
    out
}

/// Who uses entry `index` of the table `table` that the file at `path` holds (a normal of
/// FIELD.BIN: the field models whose polygons name it), as info rows: how many records of
/// each file, the files as links. The archive's references are read once (who refers to
/// `path`), and each of those files once: what each uses is kept.
pub async fn table_user_rows(
    archive: &RefCell<Archive>,
    source: &impl FileSource,
    path: &str,
    table: &str,
    index: u32,
) -> Vec<InfoRow> {
    scan_references(archive, source).await;
    let users: Vec<String> = archive
        .borrow()
        .used_by(path)
        .into_iter()
        .map(|(f, _)| f.to_string())
        .collect();
    let key = |p: &str| (p.to_ascii_lowercase(), table.to_string());
    let todo: Vec<&String> = users
        .iter()
        .filter(|u| !archive.borrow().table_uses.contains_key(&key(u)))
        .collect();
    for group in todo.chunks(READS_AT_ONCE) {
        let reads = futures_util::future::join_all(group.iter().map(|u| source.read(u))).await;
        for (user, bytes) in group.iter().zip(reads) {
            let uses = bytes
                .map(|b| registry::open(user, b, Purpose::Asset).table_uses(table))
                .unwrap_or(("record", Vec::new()));
            archive.borrow_mut().table_uses.insert(key(user), uses);
        }
    }
    let a = archive.borrow();
    let mut noun = "record";
    let mut counts: Vec<(&str, u32)> = Vec::new();
    for u in &users {
        let Some((what, uses)) = a.table_uses.get(&key(u)) else {
            continue;
        };
        if let Some(&(_, n)) = uses.iter().find(|(e, _)| *e == index) {
            noun = what;
            counts.push((u.as_str(), n));
        }
    }
    counts.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
    let total: u32 = counts.iter().map(|c| c.1).sum();
    let label = format!("{table} {index} used by");
    if counts.is_empty() {
        return vec![InfoRow::new(
            label,
            format!(
                "no file of this archive ({} read)",
                crate::words::count_len(users.len(), "file that refers here")
            ),
        )];
    }
    let list = counts
        .iter()
        .map(|(f, n)| format!("{f} ({n})"))
        .collect::<Vec<_>>()
        .join(", ");
    vec![InfoRow::new(
        label,
        format!(
            "{} in {}: {list}",
            crate::words::count(total, noun),
            crate::words::count_len(counts.len(), "file")
        ),
    )
    .with_links(counts.iter().map(|(f, _)| f.to_string()).collect())]
}

/// How many of an open's files are read at once.
const READS_AT_ONCE: usize = 16;

/// The one open sequence: read the file, parse it, read the files it needs (round by
/// round: libraries, then the maps they name), and build its scene.
pub async fn open_file(
    archive: &RefCell<Archive>,
    source: &impl FileSource,
    path: &str,
) -> Result<Opened, String> {
    open_file_for(archive, source, path, Purpose::Show).await
}

/// [`open_file`] for `purpose`: `Purpose::Draw` makes the scene or the picture and
/// describes nothing (a thumbnail).
pub async fn open_file_for(
    archive: &RefCell<Archive>,
    source: &impl FileSource,
    path: &str,
    purpose: Purpose,
) -> Result<Opened, String> {
    let t0 = source.now_ms();
    let bytes = source
        .read(path)
        .await
        .map_err(|e| format!("{path}: {e}"))?;
    let read_ms = source.now_ms() - t0;
    let mut opened = open_bytes(archive, source, path, bytes, purpose).await;
    opened.timings.read_ms = read_ms;
    Ok(opened)
}

/// [`open_file`] for bytes already read; `Purpose::Asset` skips the inspector view (the CLI
/// prints summaries, and the view costs memory per record).
pub async fn open_bytes(
    archive: &RefCell<Archive>,
    source: &impl FileSource,
    path: &str,
    bytes: Vec<u8>,
    purpose: Purpose,
) -> Opened {
    let path = archive
        .borrow()
        .index
        .find(path)
        .unwrap_or(path)
        .to_string();
    let t0 = source.now_ms();
    let document = registry::open(&path, bytes, purpose);
    archive.borrow_mut().record_references(&path, &*document);
    let t1 = source.now_ms();
    let mut unreadable = Vec::new();
    let mut scene = None;
    let mut found = Found::default();
    let mut t2 = t1;
    // A damaged file (cut short) shows what comes before the damage.
    if document.error().is_none() || document.damaged() {
        // Each round reads what the previous one made known; a path is never asked twice.
        // The deepest chain: a world's includes (at most 8 deep), its game objects, their
        // models and subsystems, the models' libraries, the libraries' texture maps.
        for _round in 0..16 {
            let needs = document.needs(&*archive.borrow());
            if needs.is_empty() {
                break;
            }
            // A round's files are read a few at a time, together: each read of a dropped
            // folder's file waits on the browser (a world's dozen reads took some 200 ms one
            // after another), and a bounded few keep a map naming thousands of files from
            // asking for all of them at once.
            for group in needs.chunks(READS_AT_ONCE) {
                let reads =
                    futures_util::future::join_all(group.iter().map(|dep| source.read(dep))).await;
                for (dep, bytes) in group.iter().zip(reads) {
                    if let Err(why) = &bytes {
                        unreadable.push(format!("{dep}: {why}"));
                    }
                    archive.borrow_mut().provide(dep, bytes);
                }
            }
        }
        t2 = source.now_ms();
        let built = document.build_scene(&*archive.borrow());
        scene = built.scene;
        found = built.found;
    }
    let t3 = source.now_ms();
    let notes = scene.as_ref().map_or(Vec::new(), Scene::untextured_notes);
    Opened {
        path,
        document,
        scene,
        found,
        unreadable,
        notes,
        timings: OpenTimings {
            read_ms: 0.0,
            parse_ms: t1 - t0,
            assets_ms: t2 - t1,
            build_ms: t3 - t2,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_kinds_for_the_same_listing_keep_its_paths_and_a_wrong_count_changes_nothing() {
        let mut index = ArchiveIndex::with_kinds([
            (
                "A/VIDEO/CUBE.BGF",
                Some(crate::formats::pods::biz2::GEOMETRY),
            ),
            ("A/NOEXT", None),
        ]);
        assert!(index.set_kinds([
            Some(crate::formats::pods::biz2::GEOMETRY),
            Some(crate::formats::pods::biz2::MATERIALS)
        ]));
        assert_eq!(
            (index.kind("a/noext"), index.find("a/video/cube.bgf")),
            (
                Some(crate::formats::pods::biz2::MATERIALS),
                Some("A/VIDEO/CUBE.BGF")
            )
        );
        assert!(!index.set_kinds([None]), "one kind for two paths");
        assert!(
            !index.set_kinds([None, None, None]),
            "three kinds for two paths"
        );
        assert_eq!(
            index.kind("A/NOEXT"),
            Some(crate::formats::pods::biz2::MATERIALS),
            "a refused set leaves the kinds as they were"
        );
    }

    /// Reads that each wait once before they end (as the browser's do), counting how many
    /// are under way at a time.
    struct Waiting {
        files: MemorySource,
        under_way: std::cell::Cell<usize>,
        most: std::cell::Cell<usize>,
        reads: std::cell::Cell<usize>,
    }

    impl FileSource for Waiting {
        async fn read(&self, path: &str) -> Result<Vec<u8>, String> {
            self.under_way.set(self.under_way.get() + 1);
            self.most.set(self.most.get().max(self.under_way.get()));
            self.reads.set(self.reads.get() + 1);
            let mut waited = false;
            std::future::poll_fn(|cx| {
                if waited {
                    return std::task::Poll::Ready(());
                }
                waited = true;
                cx.waker().wake_by_ref();
                std::task::Poll::Pending
            })
            .await;
            self.under_way.set(self.under_way.get() - 1);
            self.files.read(path).await
        }
    }

    #[test]
    fn a_worlds_files_are_read_a_bounded_few_at_once_and_give_the_same_world() {
        let files = MemorySource::new(crate::demo::demo_files());
        let plain = pollster::block_on(open_file(
            &RefCell::new(files.archive()),
            &files,
            "DEMO/MAPS/CITY.MAP",
        ))
        .unwrap();
        let waiting = Waiting {
            files: files.clone(),
            under_way: Default::default(),
            most: Default::default(),
            reads: Default::default(),
        };
        let opened = pollster::block_on(open_file(
            &RefCell::new(files.archive()),
            &waiting,
            "DEMO/MAPS/CITY.MAP",
        ))
        .unwrap();
        assert!(
            waiting.reads.get() > 3,
            "CITY needs its include, game objects, models and library: {} reads",
            waiting.reads.get()
        );
        assert!(
            waiting.most.get() > 1,
            "a round's reads overlap: at most {} at once",
            waiting.most.get()
        );
        assert!(
            waiting.most.get() <= READS_AT_ONCE,
            "{} at once",
            waiting.most.get()
        );
        let (a, b) = (plain.scene.unwrap(), opened.scene.unwrap());
        assert_eq!(a.nodes.len(), b.nodes.len());
        assert_eq!(
            a.meshes.iter().map(|m| m.triangle_count()).sum::<usize>(),
            b.meshes.iter().map(|m| m.triangle_count()).sum::<usize>()
        );
        assert_eq!(
            (plain.unreadable, plain.notes),
            (opened.unreadable, opened.notes)
        );
    }

    #[test]
    fn forgetting_the_reads_keeps_the_listing_and_the_next_open_reads_all_it_needs_again() {
        let files = MemorySource::new(crate::demo::demo_files());
        let archive = RefCell::new(files.archive());
        let counted = Waiting {
            files: files.clone(),
            under_way: Default::default(),
            most: Default::default(),
            reads: Default::default(),
        };
        pollster::block_on(open_file(&archive, &counted, "DEMO/MAPS/CITY.MAP")).unwrap();
        let first = counted.reads.get();
        // (What a file refers to is kept: its models, materials, game objects.)
        assert!(!archive.borrow().assets.is_empty());
        // Opened again, what was read is not read again.
        pollster::block_on(open_file(&archive, &counted, "DEMO/MAPS/CITY.MAP")).unwrap();
        let again = counted.reads.get() - first;
        assert!(again < first, "{again} reads of {first} again");
        let listed = archive.borrow().index.len();
        archive.borrow_mut().forget_reads();
        assert!(archive.borrow().assets.is_empty());
        assert_eq!(archive.borrow().index.len(), listed);
        pollster::block_on(open_file(&archive, &counted, "DEMO/MAPS/CITY.MAP")).unwrap();
        assert_eq!(counted.reads.get() - first - again, first);
    }

    #[test]
    fn the_texture_gallery_finds_who_uses_a_picture_and_the_pages_a_field_model_decodes() {
        let source = MemorySource::new(crate::demo::demo_files());
        let archive = RefCell::new(source.archive());
        let users = pollster::block_on(texture_users(&archive, &source, "DEMO/TEXTURE/WATER.TGA"));
        assert_eq!(users.materials, vec!["demo:water_mtl".to_string()]);
        assert!(
            users.files.contains(&"DEMO/MATERIAL/DEMO.BMF".to_string()),
            "{users:?}"
        );
        assert!(
            users.files.contains(&"DEMO/VIDEO/POOL.BGF".to_string()),
            "{users:?}"
        );
        let water =
            pollster::block_on(open_file(&archive, &source, "DEMO/TEXTURE/WATER.TGA")).unwrap();
        let card = &texture_cards(&water)[0];
        assert_eq!(
            (card.texture, card.format.contains("TGA")),
            (None, true),
            "{card:?}"
        );
        let party =
            pollster::block_on(open_file(&archive, &source, "DEMO/FIELD/PARTY.BSX")).unwrap();
        let pages = texture_cards(&party);
        assert!(!pages.is_empty());
        assert!(
            pages.iter().all(|c| (c.width, c.height) == (256, 256)
                && c.texture.is_some()
                && !c.materials.is_empty()),
            "{pages:?}"
        );
        // The thumbnail shows what the triangles sample: the bounds of their texcoords.
        let scene = party.scene.as_ref().unwrap();
        for c in &pages {
            let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
            for p in scene.meshes.iter().flat_map(|m| &m.primitives).filter(|p| {
                p.material.is_some_and(|m| {
                    scene.materials[m as usize].texture == Some(c.texture.unwrap() as u32)
                })
            }) {
                for &k in &p.indices {
                    let [u, v] = p.uvs.as_ref().unwrap()[k as usize];
                    let (x, y) = ((u * 256.0) as u32, (v * 256.0) as u32);
                    (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
                }
            }
            let used = c.used.expect("a page the model samples has used bounds");
            assert_eq!(used, [x0, y0, x1 - x0 + 1, y1 - y0 + 1], "{c:?}");
            assert!(
                used[2] < 256 || used[3] < 256,
                "the demo's pages are used in part: {used:?}"
            );
            let side = crate::gallery::THUMBNAIL_SIDE;
            assert!(
                c.thumbnail.width.max(c.thumbnail.height)
                    <= side.max(used[2].max(used[3]).min(side)),
                "{c:?}"
            );
            if used[2] <= side && used[3] <= side {
                // Not scaled: texel for texel the page's, from the bounds' corner.
                let page = &scene.textures[c.texture.unwrap()].texels;
                assert_eq!((c.thumbnail.width, c.thumbnail.height), (used[2], used[3]));
                let at = ((used[1] * page.width + used[0]) * 4) as usize;
                assert_eq!(c.thumbnail.rgba[..4], page.rgba[at..at + 4]);
            }
        }
        // What a texel of a page is made of: VRAM's word, the CLUT index, the colour.
        let words = party
            .described()
            .texel_source(pages[0].texture.unwrap(), 3, 5);
        let names: Vec<&str> = words.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["VRAM word", "CLUT index", "colour"], "{words:?}");
    }

    #[test]
    fn lookup_ignores_case_and_prefers_the_same_game_tree() {
        let index = ArchiveIndex::new([
            "CONTENT/BTLIVE/MATERIAL/BASEV.BMF",
            "CONTENT/BTDAVE/MATERIAL/basev.bmf",
            "CONTENT/BTDAVE/VIDEO/MECH/MAD.BGF",
            "OTHER/BASEV.BMF",
        ]);
        assert_eq!(
            index.find("content/btdave/video/mech/mad.bgf"),
            Some("CONTENT/BTDAVE/VIDEO/MECH/MAD.BGF")
        );
        assert_eq!(
            index.nearest("CONTENT/BTDAVE/VIDEO/MECH/MAD.BGF", "BASEV.BMF"),
            vec![
                "CONTENT/BTDAVE/MATERIAL/basev.bmf",
                "CONTENT/BTLIVE/MATERIAL/BASEV.BMF",
                "OTHER/BASEV.BMF"
            ]
        );
        // From elsewhere every candidate is equally far: ordered by path.
        assert_eq!(
            index.nearest("X/Y.BGF", "basev.bmf")[0],
            "CONTENT/BTDAVE/MATERIAL/basev.bmf"
        );
        assert!(index.nearest("X/Y.BGF", "none.bmf").is_empty());
        // Names with folders in them resolve by their file name.
        assert_eq!(
            index
                .nearest(
                    "X/Y.BGF",
                    "c:\\art\\OTHER\\basev.bmf".rsplit('\\').next().unwrap()
                )
                .len(),
            3
        );
        let r = index.resolve("OTHER/A.BGF", &["NONE.BMF".into(), "BASEV.BMF".into()]);
        assert_eq!(r.file.as_deref(), Some("OTHER/BASEV.BMF"));
        assert_eq!(r.also.len(), 2);
    }

    #[test]
    fn the_reference_graph_answers_both_ways_and_follows_updates() {
        let files = crate::demo::demo_files();
        let source = MemorySource::new(files.clone());
        let archive = RefCell::new(Archive::new(ArchiveIndex::new(
            files.iter().map(|(p, _)| p.clone()),
        )));
        let scanned = pollster::block_on(scan_references(&archive, &source));
        assert_eq!(scanned, files.len());
        assert!(
            archive.borrow().unscanned().is_empty(),
            "a second scan reads nothing"
        );
        let a = archive.borrow();
        let users: Vec<&str> = a
            .used_by("DEMO/MATERIAL/DEMO.BMF")
            .iter()
            .map(|(f, _)| *f)
            .collect();
        assert!(
            users.contains(&"DEMO/VIDEO/HEXPOD.BGF") && users.contains(&"DEMO/VIDEO/POOL.BGF"),
            "{users:?}"
        );
        let uses = a.uses("DEMO/MODELS/HEXPOD.MOD").unwrap();
        assert_eq!(
            uses[0].resolution.file.as_deref(),
            Some("DEMO/VIDEO/HEXPOD.BGF")
        );
        let rows = a.used_by_rows("DEMO/VIDEO/HEXPOD.BGF", &[]);
        assert_eq!(
            rows[0],
            InfoRow::new("used by MODs", "DEMO/MODELS/HEXPOD.MOD")
                .with_links(vec!["DEMO/MODELS/HEXPOD.MOD".into()])
        );
        // The paths are links; what follows them is text.
        assert_eq!(
            rows[1],
            InfoRow::new("used by MAPs", "DEMO/MAPS/DEMO.MAP (via hexpod.mod)")
                .with_links(vec!["DEMO/MAPS/DEMO.MAP".into()])
        );
        let cube = a.used_by_rows("DEMO/VIDEO/CUBE.BGF", &[]);
        assert_eq!(cube[0].value, "none in this archive");
        drop(a);
        // The MOD is rewritten to draw the cube instead: one file's update, no rescan.
        let doc = registry::open(
            "DEMO/MODELS/HEXPOD.MOD",
            b"[video]\r\nobject=cube.bgf\r\n".to_vec(),
            Purpose::Asset,
        );
        archive
            .borrow_mut()
            .record_references("DEMO/MODELS/HEXPOD.MOD", &*doc);
        let a = archive.borrow();
        assert_eq!(
            a.used_by_rows("DEMO/VIDEO/CUBE.BGF", &[])[0].value,
            "DEMO/MODELS/HEXPOD.MOD"
        );
        assert_eq!(
            a.used_by_rows("DEMO/VIDEO/HEXPOD.BGF", &[])[0].value,
            "none in this archive"
        );
    }
}
