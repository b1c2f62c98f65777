//! Every format through the registry, as the page and the CLI open files: the document, its
//! inspector view, info, references, scene and glTF export on arbitrary bytes under every
//! name a format reads. Nothing may panic, hang or allocate beyond the input's size.
#![no_main]

#[path = "common/named.rs"]
mod named;

use libfuzzer_sys::fuzz_target;
use relicview::archive::Archive;
use relicview::formats::registry::{self, Purpose};

fuzz_target!(|data: &[u8]| {
    let Some((name, rest)) = named::split_name(data) else {
        return;
    };
    let doc = registry::open(&name, rest.to_vec(), Purpose::Show);
    let view = doc
        .inspector(relicview::formats::Found::NOTHING)
        .expect("shown files have a view");
    // Rows, fields and runs refer to byte view 0: the file, or what a container decoded.
    let shown = doc.bytes(0).expect("byte view 0 exists").len();
    assert_eq!(view.views[0].len, shown);
    assert_eq!(
        view.views.last().map(|v| v.len),
        doc.bytes(view.views.len() - 1).map(<[u8]>::len)
    );
    assert_eq!(
        view.runs.iter().map(|r| r.len).sum::<usize>(),
        shown,
        "runs tile the bytes"
    );
    assert!(view
        .chunks
        .iter()
        .all(|r| r.offset <= r.end && r.end <= shown));
    assert!(view.fields.iter().all(|f| f.offset + f.len <= shown));
    let _ = (
        relicview::formats::Described::alone(&*doc).info_rows(),
        doc.references(),
        doc.stats(relicview::formats::Found::NOTHING),
        doc.text(),
        doc.image(),
    );
    // The summary has an "error" key exactly when the file has an error.
    let info: serde_json::Value =
        serde_json::from_str(&relicview::formats::Described::alone(&*doc).info_json())
            .expect("the summary is JSON");
    assert_eq!(info.get("error").is_some(), doc.error().is_some(), "{info}");
    if doc.error().is_some() {
        return;
    }
    // Described again with what the build found, as the page shows a built file.
    let built = doc.build_scene(&Archive::detached());
    let _ = (
        doc.info(&built.found).rows(),
        doc.info(&built.found).json(doc.error()),
        doc.stats(&built.found),
        doc.placements(&built.found).len(),
        doc.inspector(&built.found).map(|v| v.chunks.len()),
    );
    if let Some(scene) = built.scene {
        for m in &scene.meshes {
            for p in &m.primitives {
                assert!(p.indices.iter().all(|&i| (i as usize) < p.positions.len()));
                assert_eq!(p.indices.len() % 3, 0);
                // A texture is sampled only with a UV per vertex.
                assert!(scene.texture_of(p).is_none() || p.has_uvs());
            }
        }
        let _ = scene.bounds(0);
        let _ = scene.draw_plan(0);
        let glb =
            relicview::gltf::export_glb(&scene, Default::default()).expect("every scene exports");
        assert_eq!(&glb[..4], b"glTF");
        // What the Khronos validator checks of textures: a base colour texture only on a
        // primitive with TEXCOORD_0.
        let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        let j: serde_json::Value =
            serde_json::from_slice(&glb[20..20 + len]).expect("the glTF JSON parses");
        for p in j["meshes"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|m| m["primitives"].as_array().into_iter().flatten())
        {
            let Some(m) = p["material"].as_u64() else {
                continue;
            };
            let textured =
                !j["materials"][m as usize]["pbrMetallicRoughness"]["baseColorTexture"].is_null();
            assert!(!textured || p["attributes"]["TEXCOORD_0"].is_u64());
        }
    }
});
