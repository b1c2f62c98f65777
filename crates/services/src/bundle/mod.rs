//! A whole archive out (`relicview export --all`, the page's Export all): every file with a
//! scene as one binary glTF (every LOD, every model of a file of several and every clip),
//! every picture as PNG (each image of a sheet on its own), every texture a file decodes
//! from itself as PNG (a field model's VRAM pages with their CLUTs), and a report of what was
//! written, skipped and failed. Names stay inside the output whatever an archive calls its
//! files (`names`). docs/export-all.md.
//!
//! Names no format: it reads what every document and scene gives.
//! names ← report ← here ← zipped (a zip written entry by entry), folder (to disk, native).

#[cfg(not(target_arch = "wasm32"))]
pub mod folder;
pub mod names;
pub mod report;
pub mod zipped;

use crate::archive::{self, Archive, FileSource, Opened};
use crate::diff::KindWords;
use crate::formats::kind::{Kind, Purpose};
use crate::scene::Scene;
use crate::texture::Texels;
use names::SafeNames;
use report::{Failed, Report, Skipped, Written, REPORT_NAME};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::cell::RefCell;

/// One file an archive file exports to: what its name adds (`.glb`, `.page0.png`), its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub suffix: String,
    pub bytes: Vec<u8>,
}

/// What became of one archive file.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Written {
        outputs: Vec<Output>,
        note: Option<String>,
    },
    Skipped(String),
    /// Why (the report puts the file's path before it), and the byte it went wrong at.
    Failed {
        error: String,
        offset: Option<usize>,
    },
}

/// Read and open archive file `path` to be exported: as an asset, but a picture as drawn
/// (a sheet's images are told apart only then); neither is described (no inspector rows).
pub async fn open_for_export(
    archive: &RefCell<Archive>,
    source: &impl FileSource,
    path: &str,
) -> Result<Opened, String> {
    let bytes = source.read(path).await?;
    Ok(open_read_for_export(archive, source, path, bytes).await)
}

/// [`open_for_export`] of `path` whose `bytes` were read already (export --all reads a solid
/// 7z's files in its blocks' order, ahead of the workers).
pub async fn open_read_for_export(
    archive: &RefCell<Archive>,
    source: &impl FileSource,
    path: &str,
    bytes: Vec<u8>,
) -> Opened {
    let purpose = if Kind::sniff(path, &bytes[..bytes.len().min(16)], bytes.len() as u64)
        .capabilities()
        .image
    {
        Purpose::Draw
    } else {
        Purpose::Asset
    };
    archive::open_bytes(archive, source, path, bytes, purpose).await
}

/// What exporting reads of an opened file, in neutral terms: made where the formats are
/// ([`ExportInput::of`]) and sent in the wire form ([`crate::wire`]) to the page's tools
/// module, which writes the glTF and the PNGs and links no format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportInput<'a> {
    pub kind: KindWords,
    /// The parse error (its words and the byte it went wrong at), if the open gave one.
    pub error: Option<(String, usize)>,
    /// The file is cut short or runs on past its end, rather than not what it seemed:
    /// what comes before the error goes out.
    pub damaged: bool,
    /// Its picture, and the rectangles (x, y, width, height) of a sheet's images.
    pub picture: Option<Cow<'a, Texels>>,
    pub regions: Vec<[u32; 4]>,
    pub scene: Option<Cow<'a, Scene>>,
}

impl<'a> ExportInput<'a> {
    pub fn of(opened: &'a Opened) -> ExportInput<'a> {
        let doc = &*opened.document;
        ExportInput {
            kind: KindWords::of(doc.kind()),
            error: opened
                .described()
                .error()
                .map(|e| (e.to_string(), e.offset)),
            damaged: doc.damaged(),
            picture: doc.image().map(Cow::Borrowed),
            regions: doc
                .image_regions()
                .iter()
                .map(|r| [r.x, r.y, r.width, r.height])
                .collect(),
            scene: opened.scene.as_ref().map(Cow::Borrowed),
        }
    }
}

/// What the opened file `opened` exports to (`all_scenes`: every LOD and every option of its
/// choice as glTF scenes, not only what the viewer shows first; `rig`: how skeletons go out).
pub fn outcome_of(opened: &Opened, all_scenes: bool, rig: crate::gltf::Rig) -> Outcome {
    outcome_of_input(&ExportInput::of(opened), all_scenes, rig)
}

/// [`outcome_of`] a file as [`ExportInput`] gives it.
pub fn outcome_of_input(input: &ExportInput, all_scenes: bool, rig: crate::gltf::Rig) -> Outcome {
    let note = match &input.error {
        Some((error, offset)) if !input.damaged => {
            return Outcome::Failed {
                error: error.clone(),
                offset: Some(*offset),
            }
        }
        Some((error, _)) => Some(format!(
            "damaged: {error}; what comes before it is exported"
        )),
        None => None,
    };
    let made = if let Some(picture) = input.picture.as_deref() {
        // A picture goes out as a picture (its flat quad of a scene is only how it is drawn).
        picture_outputs(picture, &input.regions)
    } else if let Some(scene) = input.scene.as_deref() {
        scene_outputs(scene, all_scenes, rig)
    } else {
        Ok(Vec::new())
    };
    let outputs = match made {
        Ok(outputs) => outputs,
        Err(error) => {
            return Outcome::Failed {
                error,
                offset: None,
            }
        }
    };
    if !outputs.is_empty() {
        return Outcome::Written { outputs, note };
    }
    let kind = &input.kind;
    Outcome::Skipped(if kind.used_by {
        format!("{}: no scene or picture of its own; what other files take from it goes out in their exports", kind.title)
    } else if kind.text {
        format!("{} (text): nothing to export", kind.title)
    } else {
        format!("a {} has no scene or picture", kind.title)
    })
}

/// A picture as a PNG, or each of its `regions` (`[x, y, width, height]`) as one.
fn picture_outputs(
    picture: &crate::texture::Texels,
    regions: &[[u32; 4]],
) -> Result<Vec<Output>, String> {
    if regions.is_empty() {
        return Ok(vec![Output {
            suffix: ".png".into(),
            bytes: png(picture)?,
        }]);
    }
    regions
        .iter()
        .enumerate()
        .map(|(n, &[x, y, width, height])| {
            Ok(Output {
                suffix: format!(".image{n}.png"),
                bytes: png(&crate::texture::crop(picture, x, y, width, height))?,
            })
        })
        .collect()
}

/// A scene as a .glb, as the viewer first shows it: the colours the game's lighting gave
/// (where the file has them), LOD 0 and the choice's first option; every LOD and option as
/// glTF scenes of their own with `all_scenes`. Beside it its own texture pages and the
/// pictures its game cameras show behind it (a field's background), as PNGs.
fn scene_outputs(
    scene: &crate::scene::Scene,
    all_scenes: bool,
    rig: crate::gltf::Rig,
) -> Result<Vec<Output>, String> {
    let hidden_layers = if all_scenes {
        Vec::new()
    } else {
        scene
            .choice
            .as_ref()
            .map_or(Vec::new(), |c| c.hidden_layers(c.default))
    };
    let options = crate::gltf::ExportOptions {
        lod: 0,
        hidden_layers,
        every_choice: all_scenes,
        colours: crate::scene::ColourSet::Lit,
        all_lods: all_scenes,
        rig,
    };
    let mut outputs = vec![Output {
        suffix: ".glb".into(),
        bytes: crate::gltf::export_glb(scene, options)?,
    }];
    for (n, t) in scene.textures.iter().filter(|t| t.is_own()).enumerate() {
        outputs.push(Output {
            suffix: format!(".page{n}.png"),
            bytes: png(&t.texels)?,
        });
    }
    let backdrops = scene
        .ff7
        .cameras
        .iter()
        .filter_map(|c| scene.textures.get(c.backdrop? as usize));
    for (n, t) in backdrops.enumerate() {
        let suffix = if n == 0 {
            ".background.png".to_string()
        } else {
            format!(".background{n}.png")
        };
        outputs.push(Output {
            suffix,
            bytes: png(&t.texels)?,
        });
    }
    Ok(outputs)
}

/// Texels as a PNG's bytes.
fn png(t: &crate::texture::Texels) -> Result<Vec<u8>, String> {
    crate::texture::encode_png(t).map_err(|e| format!("the PNG could not be made: {e}"))
}

/// An export under way: the names given so far and the report.
pub struct Bundle {
    names: SafeNames,
    report: Report,
}

impl Bundle {
    /// An export of the archive called `source`.
    pub fn new(source: &str) -> Bundle {
        let mut names = SafeNames::default();
        names.reserve(REPORT_NAME);
        Bundle {
            names,
            report: Report {
                source: source.to_string(),
                ..Report::default()
            },
        }
    }

    /// Name what archive file `path` exports to and record it: → each output's name in the
    /// output and its bytes, to be written there.
    pub fn take(&mut self, path: &str, outcome: Outcome) -> Vec<(String, Vec<u8>)> {
        self.report.files += 1;
        match outcome {
            Outcome::Written { outputs, note } => outputs
                .into_iter()
                .map(|o| {
                    let file = self.names.claim(&format!("{path}{}", o.suffix));
                    self.report.bytes += o.bytes.len() as u64;
                    self.report.written.push(Written {
                        path: path.to_string(),
                        file: file.clone(),
                        bytes: o.bytes.len(),
                        note: note.clone(),
                    });
                    (file, o.bytes)
                })
                .collect(),
            Outcome::Skipped(why) => {
                self.report.skipped.push(Skipped {
                    path: path.to_string(),
                    why,
                });
                Vec::new()
            }
            Outcome::Failed { error, offset } => {
                self.report.failed.push(Failed {
                    path: path.to_string(),
                    error: format!("{path}: {error}"),
                    offset,
                });
                Vec::new()
            }
        }
    }

    /// A file that could not be read at all.
    pub fn unreadable(&mut self, path: &str, why: &str) {
        self.take(
            path,
            Outcome::Failed {
                error: format!("cannot read: {why}"),
                offset: None,
            },
        );
    }

    /// An entry the archive's listing could not list (a name a container lists twice): its
    /// path where the listing knows it, else the archive's, and why.
    pub fn not_listed(&mut self, path: &str, why: &str) {
        let path = if path.is_empty() {
            self.report.source.clone()
        } else {
            path.to_string()
        };
        self.report.failed.push(Failed {
            path,
            error: why.to_string(),
            offset: None,
        });
    }

    /// An output taken but not written (the disk refused it): failed, not written.
    pub fn not_written(&mut self, file: &str, error: String) {
        if let Some(i) = self.report.written.iter().rposition(|w| w.file == file) {
            let w = self.report.written.remove(i);
            self.report.bytes -= w.bytes as u64;
            self.report.failed.push(Failed {
                path: w.path,
                error,
                offset: None,
            });
        }
    }

    /// The report so far (without the renamings, which `finish` adds).
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The report, with every renaming.
    pub fn finish(mut self) -> Report {
        self.report.renamed = self.names.renamed;
        self.report
    }
}
