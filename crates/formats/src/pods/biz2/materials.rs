//! Material references of a DIV-BIZ2 model and how they resolve: `lib:name` is material `name`
//! in the nearest `LIB.BMF` (or `LIB.VMF`), and a material's texture map is the nearest file
//! of that name (docs/formats/biz2.md, "Materials"). The scene and the summary both read it.

use super::{Biz2File, MaterialDef, TextureDef};
use crate::gallery::{css_color, thumbnail, MaterialCard, THUMBNAIL_SIDE};
use crate::texture::Texels;
use crate::{base_name, Assets, Document};
use serde::Serialize;

/// The material libraries a model reaches, through the resolver. A library is a parsed
/// document of this format; the document layer says how to read one out of a document, so
/// that the scene never needs the document's type.
#[derive(Clone, Copy)]
pub struct Libraries<'a> {
    pub assets: &'a dyn Assets,
    pub library: fn(&dyn Document) -> Option<&Biz2File>,
}

/// How one material reference of a model resolved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MaterialResolution {
    /// The reference, verbatim ("lib:name").
    pub reference: String,
    /// The library file chosen (nearest to the model), if any exists.
    pub library: Option<String>,
    /// Other files of the same name, farther away.
    pub also: Vec<String>,
    pub found: bool,
    /// Why the library could not be used, when it was read and failed to parse.
    pub library_error: Option<String>,
}

/// How a textured material's map resolved: decoded, or drawn as a tinted checker and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextureStatus {
    pub material: String,
    pub texture: String,
    /// TEXTURE_MAP as written in the library.
    pub map: Option<String>,
    /// The archive file it resolved to.
    pub file: Option<String>,
    pub decoded: bool,
    /// Why the checker stands in, when it does.
    pub reason: Option<String>,
    pub scroll: Option<[f32; 4]>,
}

/// Split "lib:material" at its first colon.
pub fn split_material_ref(r: &str) -> Option<(&str, &str)> {
    r.split_once(':')
}

/// The library files a "lib:…" reference may live in, in order of preference.
pub fn library_file_names(lib: &str) -> Vec<String> {
    vec![format!("{lib}.BMF"), format!("{lib}.VMF")]
}

/// What a model at `model` finds for "lib:name" in `assets`.
pub struct Found<'a> {
    pub resolution: MaterialResolution,
    pub library: Option<&'a Biz2File>,
    pub def: Option<&'a MaterialDef>,
}

pub fn find<'a>(libraries: &Libraries<'a>, model: &str, reference: &str) -> Found<'a> {
    let assets = libraries.assets;
    let mut resolution = MaterialResolution {
        reference: reference.to_string(),
        library: None,
        also: Vec::new(),
        found: false,
        library_error: None,
    };
    let Some((lib, name)) = split_material_ref(reference) else {
        return Found {
            resolution,
            library: None,
            def: None,
        };
    };
    let r = assets.resolve(model, &library_file_names(lib));
    resolution.library = r.file.clone();
    resolution.also = r.also;
    let library = r
        .file
        .as_deref()
        .and_then(|f| assets.get(f))
        .and_then(libraries.library);
    resolution.library_error = r
        .file
        .as_deref()
        .and_then(|f| assets.failure(f))
        .map(str::to_string);
    let def = library.and_then(|l| {
        l.materials.iter().find(|m| {
            m.name
                .as_deref()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
    });
    resolution.found = def.is_some();
    Found {
        resolution,
        library,
        def,
    }
}

/// The TEXTURE a material names, in the material's own library.
pub fn texture_of<'a>(library: &'a Biz2File, material: &MaterialDef) -> Option<&'a TextureDef> {
    let name = material.texture_name()?;
    library.textures.iter().find(|t| {
        t.name
            .as_deref()
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
    })
}

/// What a material's texture map resolved to, for the file at `at` (a model, or the
/// library itself): the archive file, its picture, or why there is none.
pub struct ResolvedMap<'a> {
    pub texture: &'a str,
    /// TEXTURE_MAP as written.
    pub map: Option<&'a str>,
    pub file: Option<String>,
    pub image: Option<&'a Texels>,
    /// Why no picture, when there is none.
    pub reason: Option<String>,
    pub scroll: Option<[f32; 4]>,
}

/// The map of the texture material `def` of `library` (at `lib_path`) names, where it has
/// one; None for an untextured material.
pub fn resolve_map<'a>(
    assets: &'a dyn Assets,
    at: &str,
    library: &'a Biz2File,
    lib_path: &str,
    def: &'a MaterialDef,
) -> Option<ResolvedMap<'a>> {
    let name = def.texture_name()?;
    let tex = texture_of(library, def);
    let map = tex.and_then(|t| t.map.as_deref());
    let file = map.and_then(|m| assets.resolve(at, &[base_name(m).to_string()]).file);
    let image = file
        .as_deref()
        .and_then(|p| assets.get(p))
        .and_then(|d| d.image());
    let reason = match (tex, map, file.as_deref(), image) {
        (None, ..) => Some(format!("texture {name} is not in {lib_path}")),
        (Some(_), None, ..) => Some(format!("texture {name} names no map file")),
        (Some(_), Some(map), None, _) => Some(format!("map file {map} is not in the archive")),
        (.., Some(p), None) => Some(
            assets
                .failure(p)
                .map_or(format!("{p} was not read"), str::to_string),
        ),
        (.., Some(_)) => None,
    };
    Some(ResolvedMap {
        texture: name,
        map,
        file,
        image,
        reason,
        scroll: tex.and_then(|t| t.scroll()),
    })
}

/// The map files a library's own materials name, still to read (for its cards).
pub fn own_maps(assets: &dyn Assets, path: &str, library: &Biz2File) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for map in library
        .materials
        .iter()
        .filter_map(|d| texture_of(library, d)?.map.as_deref())
    {
        if let Some(p) = assets
            .resolve(path, &[base_name(map).to_string()])
            .file
            .filter(|p| !assets.known(p) && !out.iter().any(|o| o.eq_ignore_ascii_case(p)))
        {
            out.push(p);
        }
    }
    out
}

/// A card per material of the library at `path`: its colour, its texture's thumbnail and
/// file (or why it has none), and the record it was read from.
pub fn cards(assets: &dyn Assets, path: &str, library: &Biz2File) -> Vec<MaterialCard> {
    library
        .materials
        .iter()
        .enumerate()
        .map(|(i, def)| {
            let map = resolve_map(assets, path, library, path, def);
            MaterialCard {
                name: def.name.clone().unwrap_or_else(|| format!("material {i}")),
                color: def.diffuse.map(css_color),
                texture: map.as_ref().map(|m| m.texture.to_string()),
                texture_file: map.as_ref().and_then(|m| m.file.clone()),
                problem: map.as_ref().and_then(|m| m.reason.clone()),
                thumbnail: map
                    .as_ref()
                    .and_then(|m| m.image)
                    .map(|t| thumbnail(t, THUMBNAIL_SIDE)),
                bytes: Some(def.record),
                record: None,
            }
        })
        .collect()
}

/// Files still to read for a model: its libraries first, then (once those are in) the
/// texture maps their materials name.
pub fn needs(libraries: &Libraries<'_>, model: &str, references: &[String]) -> Vec<String> {
    let assets = libraries.assets;
    fn add(out: &mut Vec<String>, assets: &dyn Assets, p: Option<String>) {
        if let Some(p) =
            p.filter(|p| !assets.known(p) && !out.iter().any(|o| o.eq_ignore_ascii_case(p)))
        {
            out.push(p);
        }
    }
    let mut out: Vec<String> = Vec::new();
    for r in references {
        if let Some((lib, _)) = split_material_ref(r) {
            add(
                &mut out,
                assets,
                assets.resolve(model, &library_file_names(lib)).file,
            );
        }
    }
    if !out.is_empty() {
        return out;
    }
    for r in references {
        let found = find(libraries, model, r);
        if let (Some(lib), Some(def)) = (found.library, found.def) {
            if let Some(map) = texture_of(lib, def).and_then(|t| t.map.as_deref()) {
                add(
                    &mut out,
                    assets,
                    assets.resolve(model, &[base_name(map).to_string()]).file,
                );
            }
        }
    }
    out
}

/// How "lib:name" resolves for a model at `model`.
pub fn resolution(libraries: &Libraries<'_>, model: &str, reference: &str) -> MaterialResolution {
    find(libraries, model, reference).resolution
}
