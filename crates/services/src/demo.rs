//! The demo archive (written by the formats' writers: `formats::demo`), and what is done
//! with it through the archive: the page's warm-up.

pub use crate::formats::demo::*;
use crate::formats::pods::biz2::writer::{write_file, WriteOptions};

/// Opens a generated world (a city of `side`² blocks) and a model of `patches` height-field
/// patches through the one open sequence, from memory, and lets them go; → the triangles
/// built. The page runs this a few times in idle time after it starts: a browser runs a wasm
/// function with its baseline compiler until the function has done a good deal of work,
/// and only then compiles it fully, so the parser, the world's assembly and the scene
/// building run several times slower in the first file a reader opens than in the next
/// (CITY.MAP, opened twice in one page: parse 25 → 9 ms, scene build 59 → 22). Nothing
/// outlives the call.
pub fn exercise_open_sequence(side: usize, patches: usize) -> Result<usize, String> {
    use crate::archive::{open_file, MemorySource};
    let mut files = city_files(side);
    let model = "DEMO/VIDEO/TERRAIN.BGF";
    files.push((
        model.into(),
        write_file(&large_model(patches), WriteOptions::default()),
    ));
    let source = MemorySource::new(files);
    let archive = std::cell::RefCell::new(source.archive());
    let mut triangles = 0;
    for path in ["DEMO/MAPS/CITY.MAP", model] {
        // A memory source reads at once: the open sequence finishes in its first poll.
        let opened = now(open_file(&archive, &source, path))
            .ok_or_else(|| format!("{path}: the open waited on a read from memory"))??;
        if let Some(e) = opened.described().error() {
            return Err(format!("{path}: {e}"));
        }
        triangles += opened.scene.map_or(0, |s| s.triangle_count(0));
    }
    Ok(triangles)
}

/// A future's output if it is ready at its first poll.
fn now<T>(future: impl std::future::Future<Output = T>) -> Option<T> {
    let mut future = std::pin::pin!(future);
    match future
        .as_mut()
        .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    {
        std::task::Poll::Ready(out) => Some(out),
        std::task::Poll::Pending => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warm_up_opens_its_whole_world_and_model_and_grows_with_its_sizes() {
        // A block is three buildings of 24 triangles and a crate of 12 (as `relicview info`
        // counts the demo's BLDG.BGF and CRATE.BGF); a patch is 32×32 quads.
        for (side, patches) in [(1, 1), (3, 2), (12, 8)] {
            assert_eq!(
                exercise_open_sequence(side, patches),
                Ok(side * side * (3 * 24 + 12) + patches * 32 * 32 * 2),
                "{side}, {patches}"
            );
        }
    }

    /// Open a demo file through the one open sequence, in the demo archive.
    fn open(path: &str) -> crate::archive::Opened {
        let source = crate::archive::MemorySource::new(demo_files());
        let archive = std::cell::RefCell::new(source.archive());
        pollster::block_on(crate::archive::open_file(&archive, &source, path)).unwrap()
    }

    #[test]
    fn pool_textures_resolve_decode_scroll_and_fall_back_to_a_checker() {
        struct Counting(
            crate::archive::MemorySource,
            std::cell::RefCell<Vec<String>>,
        );
        impl crate::archive::FileSource for Counting {
            async fn read(&self, path: &str) -> Result<Vec<u8>, String> {
                self.1.borrow_mut().push(path.to_string());
                self.0.read(path).await
            }
        }
        let source = Counting(
            crate::archive::MemorySource::new(demo_files()),
            Default::default(),
        );
        let archive = std::cell::RefCell::new(source.0.archive());
        let mut opened = pollster::block_on(crate::archive::open_file(
            &archive,
            &source,
            "DEMO/VIDEO/POOL.BGF",
        ))
        .unwrap();
        assert_eq!(
            *source.1.borrow(),
            vec![
                "DEMO/VIDEO/POOL.BGF",
                "DEMO/MATERIAL/DEMO.BMF",
                "DEMO/TEXTURE/WATER.TGA",
                "DEMO/TEXTURE/SIGN.RGB"
            ],
            "the model, its library, then the maps it names"
        );
        let scene = opened.scene.take().unwrap();
        let info: serde_json::Value =
            serde_json::from_str(&opened.described().info_json()).unwrap();
        let statuses = info["texture_status"].as_array().unwrap();
        let by = |t: &str| statuses.iter().find(|s| s["texture"] == t).unwrap();
        assert_eq!(by("water_tex")["decoded"], true);
        assert_eq!(
            by("water_tex")["scroll"],
            serde_json::json!([0.0, 0.0, 0.25, 0.1])
        );
        assert_eq!(by("water_tex")["file"], "DEMO/TEXTURE/WATER.TGA");
        assert_eq!(by("sign_tex")["decoded"], true);
        assert_eq!(by("panel_tex")["decoded"], false);
        assert_eq!(
            by("panel_tex")["reason"],
            "map file PANEL.SVT is not in the archive"
        );
        assert_eq!(scene.textures.len(), 3);
        let texels = |t: &str| {
            &scene
                .textures
                .iter()
                .find(|x| x.name.as_deref() == Some(t))
                .unwrap()
                .texels
        };
        assert_eq!(
            (texels("sign_tex").width, texels("water_tex").width),
            (16, 32)
        );
        assert_eq!(
            texels("panel_tex"),
            &crate::texture::checker([0.85, 0.75, 0.3])
        );
        // Every primitive has a textured material and UVs; the water scrolls.
        let prims: Vec<_> = scene.meshes.iter().flat_map(|m| &m.primitives).collect();
        assert_eq!(prims.len(), 6);
        assert!(prims.iter().all(|p| p
            .material
            .is_some_and(|m| scene.materials[m as usize].texture.is_some())));
        assert!(prims
            .iter()
            .all(|p| p.uvs.as_ref().map(Vec::len) == Some(p.positions.len())));
        assert_eq!(scene.scrolling_materials().len(), 1);
        assert_eq!(scene.draw_plan(0).draw_calls(), 3, "one draw per texture");
        // A second model using the same library reads nothing more.
        source.1.borrow_mut().clear();
        pollster::block_on(crate::archive::open_file(
            &archive,
            &source,
            "DEMO/VIDEO/HEXPOD.BGF",
        ))
        .unwrap();
        assert_eq!(
            *source.1.borrow(),
            vec!["DEMO/VIDEO/HEXPOD.BGF"],
            "libraries and maps are read once per archive"
        );
    }

    #[test]
    fn every_vertex_format_is_drawn_with_its_own_attributes() {
        let bytes = write_file(&vertex_formats(), WriteOptions::default());
        // Drawn without a library: every patch is the neutral grey.
        let source = crate::archive::MemorySource::new([("FORMATS.BGF".to_string(), bytes)]);
        let archive = std::cell::RefCell::new(source.archive());
        let scene = pollster::block_on(crate::archive::open_file(&archive, &source, "FORMATS.BGF"))
            .unwrap()
            .scene
            .unwrap();
        assert_eq!(scene.triangle_count(0), 28);
        let prims: Vec<_> = scene.meshes.iter().flat_map(|m| &m.primitives).collect();
        let base = |k: usize| scene.materials[prims[k].material.unwrap() as usize].base_color;
        // Tile 1 (0x081) has normals; tile 0 (0x080) shades flat.
        assert!(prims[1].normals.is_some() && prims[0].normals.is_none());
        // Tile 2 (0x082) has vertex colours: its first corner is red, drawn as they are.
        assert_eq!(prims[2].colors.as_ref().unwrap()[0], [230, 26, 26, 255]);
        assert_eq!(base(2), [1.0; 4]);
        // Tile 4 (0x084) has luminance 0.25, which scales the material colour.
        assert_eq!(prims[4].colors.as_ref().unwrap()[0], [64, 64, 64, 255]);
        assert_eq!(base(4), [0.72, 0.72, 0.70, 1.0]);
        // Tile 0 (0x080) has neither: the material colour alone.
        assert!(prims[0].colors.is_none());
        assert_eq!(prims[6].uvs.as_ref().unwrap()[2], [1.0, 1.0]);
    }

    #[test]
    fn every_demo_file_opens_through_the_open_sequence() {
        for (path, _) in demo_files() {
            let o = open(&path);
            assert!(o.described().error().is_none(), "{path}");
            assert!(o.unreadable.is_empty(), "{path}: {:?}", o.unreadable);
            let caps = o.document.kind().capabilities();
            assert_eq!(o.scene.is_some(), caps.scene, "{path}");
        }
    }
}
