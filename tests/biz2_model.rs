//! Triangulation and diagnostics of the DIV-BIZ2 model layer, on files made by the writer.

use proptest::prelude::*;
use relicview::formats::pods::biz2::writer::{write_file, write_nodes, Node, WriteOptions};
use relicview::formats::pods::biz2::{
    tags, Biz2File, Connectivity, DeclaredBounds, FileKind, Header, LightPoint, Lod, MaterialDef,
    MaterialRef, Object, Patch, Primitive, PrimitiveKind, RampDef, TextureDef, TextureRef,
    VertexBlock,
};
use relicview::scene::source_of;

fn prim(
    kind: PrimitiveKind,
    positions: Vec<[f32; 3]>,
    connectivity: Vec<Connectivity>,
) -> Primitive {
    Primitive {
        kind,
        record: [0, 0],
        vertices: VertexBlock {
            format: 0x080,
            positions,
            ..Default::default()
        },
        connectivity,
        triangles: Vec::new(),
        triangle_sources: Vec::new(),
        bounds: None,
    }
}

fn file_with(prims: Vec<Primitive>) -> Biz2File {
    let patch = Patch {
        record: [0, 0],
        name: Some("p".into()),
        front: None,
        back: None,
        specials: Vec::new(),
        faceted: None,
        decal: None,
        primitives: prims,
    };
    let lod = Lod {
        record: Some([0, 0]),
        distance: Some([0.0, 10.0]),
        transition: None,
        patches: vec![patch],
    };
    Biz2File {
        objects: vec![Object {
            record: [0, 0],
            name: Some("o".into()),
            front: None,
            back: None,
            sv_vertex: None,
            specials: Vec::new(),
            lods: vec![lod],
            points: Vec::new(),
        }],
        ..Biz2File::new(FileKind::Geometry, Header::default())
    }
}

fn grid(n: usize) -> Vec<[f32; 3]> {
    (0..n)
        .map(|i| [i as f32, (i * i % 7) as f32, 0.5])
        .collect()
}

fn parse(f: &Biz2File) -> Biz2File {
    Biz2File::parse(&write_file(f, WriteOptions::default()))
        .unwrap()
        .1
}

#[test]
fn pmesh_uses_both_conn_and_pconn_and_fans_hexagons() {
    let f = file_with(vec![prim(
        PrimitiveKind::PMesh,
        grid(8),
        vec![
            Connectivity::Faces {
                points_per_face: 6,
                indices: vec![0, 1, 2, 3, 4, 5],
            },
            Connectivity::Triangles(vec![[5, 6, 7]]),
        ],
    )]);
    let p = &parse(&f).objects[0].lods[0].patches[0].primitives[0];
    assert_eq!(
        p.triangles,
        vec![[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 5], [5, 6, 7]]
    );
    // Each triangle points at the index chunk that produced it: PCONN, then CONN.
    assert_eq!(p.triangle_sources.len(), 2);
    let record = |t| source_of(&p.triangle_sources, t).map(|r| r.record);
    assert_eq!(record(0), record(3));
    assert_ne!(record(3), record(4));
    assert_eq!(p.triangle_sources[1].first, 4);
}

#[test]
fn tristrip_alternates_winding_and_polygon_fans() {
    let f = file_with(vec![
        prim(PrimitiveKind::TriStrip, grid(5), vec![]),
        prim(PrimitiveKind::Polygon, grid(5), vec![]),
    ]);
    let l = &parse(&f).objects[0].lods[0].patches[0];
    assert_eq!(
        l.primitives[0].triangles,
        vec![[0, 1, 2], [2, 1, 3], [2, 3, 4]]
    );
    assert_eq!(
        l.primitives[1].triangles,
        vec![[0, 1, 2], [0, 2, 3], [0, 3, 4]]
    );
}

#[test]
fn index_out_of_range_is_a_diagnostic_with_offset_and_the_rest_draws() {
    let f = file_with(vec![prim(
        PrimitiveKind::PMesh,
        grid(4),
        vec![Connectivity::Triangles(vec![
            [0, 1, 2],
            [1, 9, 3],
            [1, 2, 3],
        ])],
    )]);
    let bytes = write_file(&f, WriteOptions::default());
    let (tree, parsed) = Biz2File::parse(&bytes).unwrap();
    let p = &parsed.objects[0].lods[0].patches[0].primitives[0];
    assert_eq!(p.triangles, vec![[0, 1, 2], [1, 2, 3]]);
    assert_eq!(parsed.diagnostics.len(), 1);
    let d = &parsed.diagnostics[0];
    let conn = tree.iter().find(|c| c.id == tags::CONNECTION_LIST).unwrap();
    // Second triangle, second index.
    assert_eq!(d.offset, conn.payload_offset + 12 + 4);
    assert_eq!(
        i32::from_le_bytes(bytes[d.offset..d.offset + 4].try_into().unwrap()),
        9
    );
    assert!(
        d.path
            .starts_with("OBJECT[0]/LOD[0]/PATCH[0]/PMESH[0]/CONNECTION_LIST[0]"),
        "{}",
        d.path
    );
    assert!(d.message.contains("out of range"));
}

#[test]
fn nan_positions_and_bad_points_per_face_are_diagnostics() {
    let mut pos = grid(4);
    pos[3][1] = f32::NAN;
    let f = file_with(vec![prim(
        PrimitiveKind::PMesh,
        pos,
        vec![
            Connectivity::Triangles(vec![[0, 1, 2], [1, 2, 3]]),
            Connectivity::Faces {
                points_per_face: 2,
                indices: vec![0, 1],
            },
        ],
    )]);
    let parsed = parse(&f);
    assert_eq!(parsed.objects[0].lods[0].triangle_count(), 1);
    let messages: Vec<_> = parsed
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert!(messages.iter().any(|m| m.contains("NaN")), "{messages:?}");
    assert!(
        messages.iter().any(|m| m.contains("points-per-face is 2")),
        "{messages:?}"
    );
}

#[test]
fn vertex_block_not_a_multiple_of_stride_is_a_diagnostic() {
    let mesh = Node::container(tags::PMESH, vec![Node::leaf(0x0080, vec![0u8; 12 * 3 + 5])]);
    let patch = Node::container(tags::PATCH, vec![mesh]);
    let bytes = write_nodes(
        b"DIV-BIZ2",
        &[Node::container(tags::OBJECT, vec![patch])],
        WriteOptions::default(),
    );
    let (_, f) = Biz2File::parse(&bytes).unwrap();
    assert_eq!(f.objects[0].lods[0].vertex_count(), 3);
    assert!(f.diagnostics[0]
        .message
        .contains("not a multiple of its 12-byte stride"));
}

#[test]
fn files_without_namespace_bits_load_by_context() {
    // The 1994 loader's view: every id bare. UNIT inside HEADER, NAME inside OBJECT,
    // LOD_DISTANCE inside LOD all lack 0x2000.
    let bare = |id: u16| id & !tags::ATTRIBUTE;
    let tri = [0.0f32, 0., 0., 1., 0., 0., 0., 1., 0.]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect::<Vec<u8>>();
    let conn = [0i32, 1, 2]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect::<Vec<u8>>();
    let pmesh = Node::container(
        tags::PMESH,
        vec![
            Node::leaf(0x0080, tri),
            Node::leaf(tags::CONNECTION_LIST, conn),
        ],
    );
    let lod = Node::container(
        tags::LOD,
        vec![
            Node::floats(bare(tags::LOD_DISTANCE), &[0.0, 50.0]),
            Node::container(tags::PATCH, vec![pmesh]),
        ],
    );
    let object = Node::container(
        tags::OBJECT,
        vec![Node::string(bare(tags::NAME), "old"), lod],
    );
    let header = Node::container(
        tags::HEADER,
        vec![
            Node::leaf(bare(tags::UNIT), vec![1]),
            Node::floats(bare(tags::SCALE), &[2.0]),
        ],
    );
    let bytes = write_nodes(b"DIV-BIZ2", &[header, object], WriteOptions::default());
    let (tree, f) = Biz2File::parse(&bytes).unwrap();
    assert_eq!(f.header.unit, Some(1));
    assert_eq!(f.header.scale, Some(2.0));
    assert_eq!(f.objects[0].name.as_deref(), Some("old"));
    assert_eq!(f.objects[0].lods[0].distance, Some([0.0, 50.0]));
    assert_eq!(f.triangle_count(), 1);
    assert!(tree.iter().filter(|c| c.namespace_inferred).count() >= 4);
}

fn arb_vertex_block() -> impl Strategy<Value = VertexBlock> {
    (
        prop::sample::select(tags::VERTEX_LAYOUTS.to_vec()),
        3usize..12,
    )
        .prop_flat_map(|(layout, n)| {
            let f = || -1000.0f32..1000.0;
            let opt3 = move |on: bool| {
                prop::collection::vec([f(), f(), f()], n).prop_map(move |v| on.then_some(v))
            };
            (
                prop::collection::vec([f(), f(), f()], n),
                opt3(layout.normal.is_some()),
                prop::collection::vec([f(), f(), f(), f()], n)
                    .prop_map(move |v| layout.rgba.is_some().then_some(v)),
                prop::collection::vec([f(), f()], n)
                    .prop_map(move |v| layout.lum.is_some().then_some(v)),
                prop::collection::vec([f(), f()], n)
                    .prop_map(move |v| layout.uv.is_some().then_some(v)),
                opt3(layout.uvw.is_some()),
            )
                .prop_map(move |(positions, normals, colors, lum, uvs, uvws)| {
                    VertexBlock {
                        format: layout.id,
                        positions,
                        normals,
                        colors,
                        lum,
                        uvs,
                        uvws,
                    }
                })
        })
}

fn arb_primitive() -> impl Strategy<Value = Primitive> {
    (
        arb_vertex_block(),
        prop::sample::select(vec![
            PrimitiveKind::PMesh,
            PrimitiveKind::TriStrip,
            PrimitiveKind::Polygon,
            PrimitiveKind::PolyStrip,
        ]),
    )
        .prop_flat_map(|(v, kind)| {
            let n = v.positions.len() as i32;
            let conn = prop::collection::vec(
                prop_oneof![
                    prop::collection::vec([0..n, 0..n, 0..n], 0..6)
                        .prop_map(Connectivity::Triangles),
                    (3u8..7).prop_flat_map(move |ppf| prop::collection::vec(
                        0..n,
                        ppf as usize * 2
                    )
                    .prop_map(move |indices| Connectivity::Faces {
                        points_per_face: ppf,
                        indices
                    })),
                ],
                if kind == PrimitiveKind::PMesh {
                    0..3
                } else {
                    0..1
                },
            );
            (Just(v), Just(kind), conn)
        })
        .prop_map(|(vertices, kind, connectivity)| Primitive {
            kind,
            record: [0, 0],
            vertices,
            connectivity,
            triangles: Vec::new(),
            triangle_sources: Vec::new(),
            bounds: None,
        })
}

fn arb_name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_:]{0,12}"
}

fn arb_f3() -> impl Strategy<Value = [f32; 3]> {
    [0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0]
}

fn arb_material() -> impl Strategy<Value = MaterialDef> {
    (
        prop::option::of(arb_name()),
        prop::option::of(any::<u8>()),
        prop::option::of(prop_oneof![
            arb_name().prop_map(|n| TextureRef {
                mode: 2,
                name: Some(n)
            }),
            (0u8..2).prop_map(|mode| TextureRef { mode, name: None })
        ]),
        (
            prop::option::of(arb_f3()),
            prop::option::of(arb_f3()),
            prop::option::of([0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0, 0.0f32..128.0]),
        ),
        (
            prop::option::of(arb_f3()),
            prop::option::of(arb_f3()),
            prop::option::of(arb_name()),
        ),
    )
        .prop_map(
            |(name, scope, texture, (ambient, diffuse, specular), (emissive, opacity, ramp))| {
                MaterialDef {
                    record: [0, 0],
                    name,
                    scope,
                    texture,
                    ambient,
                    diffuse,
                    specular,
                    emissive,
                    opacity,
                    ramp,
                }
            },
        )
}

fn arb_texture() -> impl Strategy<Value = TextureDef> {
    (
        prop::option::of(arb_name()),
        prop::option::of("[A-Z0-9_]{1,8}\\.(TGA|SVT|RGB)"),
        prop::array::uniform8(prop::option::of(any::<u8>())),
        prop::collection::vec(
            prop_oneof![Just(" SCROLL 0 0 0.25 -0.5 ".to_string()), "[A-Z ]{0,20}"],
            0..3,
        ),
    )
        .prop_map(|(name, map, b, specials)| TextureDef {
            record: [0, 0],
            name,
            scope: b[0],
            map,
            minify: b[1],
            magnify: b[2],
            alpha: b[3],
            wrap_u: b[4],
            wrap_v: b[5],
            detail: b[6],
            bitslice: b[7],
            specials,
        })
}

fn arb_ramp() -> impl Strategy<Value = RampDef> {
    (
        prop::option::of(arb_name()),
        prop::option::of(any::<u8>()),
        prop::option::of([arb_f3(), arb_f3()]),
    )
        .prop_map(|(name, scope, colors)| RampDef {
            record: [0, 0],
            name,
            scope,
            colors,
        })
}

fn arb_points() -> impl Strategy<Value = Vec<LightPoint>> {
    prop::collection::vec(
        (
            [-9.0f32..9.0, -9.0f32..9.0, -9.0f32..9.0],
            prop::option::of(0.0f32..2.0),
        ),
        0..4,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|(position, radius)| LightPoint {
                record: [0, 0],
                position,
                radius,
            })
            .collect()
    })
}

fn arb_material_ref() -> impl Strategy<Value = Option<MaterialRef>> {
    prop::option::of(prop_oneof![
        Just(MaterialRef::None),
        arb_name().prop_map(MaterialRef::Named),
        Just(MaterialRef::Default),
        Just(MaterialRef::SameAsFront),
        (4u8..=255).prop_map(MaterialRef::Other),
    ])
}

/// What the file says, without what the reader derives (where its records lie, triangles).
fn stored(mut f: Biz2File) -> Biz2File {
    f.materials.iter_mut().for_each(|m| m.record = [0, 0]);
    f.textures.iter_mut().for_each(|t| t.record = [0, 0]);
    f.ramps.iter_mut().for_each(|r| r.record = [0, 0]);
    for o in &mut f.objects {
        o.record = [0, 0];
        o.points.iter_mut().for_each(|p| p.record = [0, 0]);
        for l in &mut o.lods {
            l.record = l.record.map(|_| [0, 0]);
            for p in &mut l.patches {
                p.record = [0, 0];
                for q in &mut p.primitives {
                    q.record = [0, 0];
                    q.triangles.clear();
                    q.triangle_sources.clear();
                    q.bounds = None;
                }
            }
        }
    }
    f
}

proptest! {
    #[test]
    fn read_of_write_is_identity(
        prims in prop::collection::vec(arb_primitive(), 1..4),
        wide in any::<bool>(),
        distance in prop::option::of([0.0f32..100.0, 100.0f32..1000.0]),
        refs in (arb_material_ref(), arb_material_ref(), prop::collection::vec("[ a-z_0-9]{0,20}", 0..3), prop::option::of(any::<u8>()), prop::option::of(any::<u8>())),
        object_specials in prop::collection::vec("[ A-Z]{0,12}", 0..3),
        points in arb_points(),
        comments in prop::collection::vec("[ -~]{0,30}", 0..2),
        object_refs in (arb_material_ref(), arb_material_ref()),
        bounds in prop::option::of((prop::option::of([arb_f3(), arb_f3()]), prop::option::of((arb_f3(), 0.0f32..10.0)))),
    ) {
        let mut f = file_with(prims);
        f.objects[0].lods[0].distance = distance;
        f.objects[0].points = points;
        (f.objects[0].front, f.objects[0].back) = object_refs;
        f.bounds = bounds.map(|(bbox, bsphere)| DeclaredBounds { bbox, bsphere });
        f.comments = comments;
        let patch = &mut f.objects[0].lods[0].patches[0];
        (patch.front, patch.back, patch.specials, patch.faceted, patch.decal) = refs;
        f.objects[0].specials = object_specials;
        f.header = Header { version: Some("2.8".into()), scale: Some(0.5), unit: Some(1), filetype: Some(0), ..Default::default() };
        let bytes = write_file(&f, WriteOptions { wide_lengths: wide });
        let (tree, back) = Biz2File::parse(&bytes).unwrap();
        prop_assert!(tree.closes_exactly);
        if wide {
            prop_assert_eq!(tree.length_widths()[2], tree.len() - 1);
        }
        prop_assert!(back.diagnostics.is_empty(), "{:?}", back.diagnostics);
        // Triangle count formula: CONN n/3, PCONN faces·(ppf−2), strips and fans n−2.
        let expected: usize = f.objects[0].lods[0].primitives().map(|p| match p.kind {
            PrimitiveKind::PMesh => p.connectivity.iter().map(|c| match c {
                Connectivity::Triangles(t) => t.len(),
                Connectivity::Faces { points_per_face, indices } => indices.len() / *points_per_face as usize * (*points_per_face as usize - 2),
            }).sum(),
            _ => p.vertices.positions.len() - 2,
        }).sum();
        prop_assert_eq!(back.triangle_count(), expected);
        // The triangles themselves: CONN as listed, PCONN faces fanned (f0, fk, fk+1).
        for p in back.objects[0].lods[0].primitives().filter(|p| p.kind == PrimitiveKind::PMesh) {
            let fanned: Vec<[u32; 3]> = p.connectivity.iter().flat_map(|c| match c {
                Connectivity::Triangles(t) => t.iter().map(|t| t.map(|i| i as u32)).collect::<Vec<_>>(),
                Connectivity::Faces { points_per_face, indices } => indices
                    .chunks_exact(*points_per_face as usize)
                    .flat_map(|f| (1..f.len() - 1).map(move |k| [f[0] as u32, f[k] as u32, f[k + 1] as u32]))
                    .collect(),
            }).collect();
            prop_assert_eq!(&p.triangles, &fanned);
            // Every triangle names the bytes of the face it came from: its indices read back
            // from those bytes, in the fan's order.
            for (t, tri) in p.triangles.iter().enumerate() {
                let run = source_of(&p.triangle_sources, t as u32).expect("every triangle has a source");
                let (from, to) = run.face_bytes(t as u32);
                let face: Vec<u32> = bytes[from..to].chunks_exact(4).map(|b| u32::from_le_bytes(b.try_into().unwrap())).collect();
                let k = (t as u32 - run.first) % run.tris_per_face.max(1) + 1;
                prop_assert_eq!([face[0], face[k as usize], face[k as usize + 1]], *tri, "triangle {}", t);
            }
        }
        // Each primitive's box is the box of its finite positions.
        for p in back.objects[0].lods[0].primitives() {
            let finite: Vec<&[f32; 3]> = p.vertices.positions.iter().filter(|v| v.iter().all(|x| x.is_finite())).collect();
            let naive = (!finite.is_empty()).then(|| {
                let fold = |f: fn(f32, f32) -> f32, start: f32| [0, 1, 2].map(|a| finite.iter().map(|v| v[a]).fold(start, f));
                [fold(f32::min, f32::INFINITY), fold(f32::max, f32::NEG_INFINITY)]
            });
            prop_assert_eq!(p.bounds, naive);
        }
        prop_assert_eq!(stored(back), stored(f));
    }
}

proptest! {
    #[test]
    fn material_libraries_round_trip(
        materials in prop::collection::vec(arb_material(), 0..4),
        textures in prop::collection::vec(arb_texture(), 0..4),
        ramps in prop::collection::vec(arb_ramp(), 0..3),
        wide in any::<bool>(),
    ) {
        let f = Biz2File { materials, textures, ramps, ..Biz2File::new(FileKind::Materials, Header { filetype: Some(1), ..Default::default() }) };
        let bytes = write_file(&f, WriteOptions { wide_lengths: wide });
        prop_assert_eq!(&bytes[..8], b"DIV-BMF2");
        let (tree, back) = Biz2File::parse(&bytes).unwrap();
        prop_assert!(tree.closes_exactly);
        prop_assert!(back.diagnostics.is_empty(), "{:?}", back.diagnostics);
        prop_assert_eq!(stored(back), stored(f));
    }
}

#[test]
fn scroll_is_parsed_from_special() {
    let mut t = TextureDef::new("water");
    t.specials = vec![" SCROLL 0 0.5 0.25 -1.5 ".into()];
    assert_eq!(t.scroll(), Some([0.0, 0.5, 0.25, -1.5]));
    t.specials = vec!["scroll 1 2".into()];
    assert_eq!(t.scroll(), None);
    t.specials = vec!["ADDITIVE".into(), "ADDITIVE SCROLL 1 2 3 4 BLINK".into()];
    assert_eq!(
        t.scroll(),
        Some([1.0, 2.0, 3.0, 4.0]),
        "the first SPECIAL that scrolls"
    );
}

#[test]
fn misplaced_structural_chunks_are_kept_with_a_diagnostic() {
    let patch_at_top = Node::container(tags::PATCH, vec![Node::string(tags::NAME, "stray")]);
    let bytes = write_nodes(b"DIV-BIZ2", &[patch_at_top], WriteOptions::default());
    let (tree, f) = Biz2File::parse(&bytes).unwrap();
    assert!(tree.chunk(0).unwrap().misplaced);
    assert_eq!(f.diagnostics.len(), 1);
    assert_eq!(f.diagnostics[0].offset, 8);
    assert!(
        f.diagnostics[0]
            .message
            .contains("not expected inside the top level"),
        "{}",
        f.diagnostics[0].message
    );
}

#[test]
fn coverage_tells_decoded_opaque_and_unclaimed_bytes_apart() {
    let mut name = b"box\0".to_vec();
    name.extend([0xAA, 0xBB]); // two bytes after the NUL that nothing explains
    let object = Node::container(
        tags::OBJECT,
        vec![
            Node::leaf(tags::NAME, name),
            Node::leaf(0x0777, vec![1, 2, 3]),
        ],
    );
    let bytes = write_nodes(b"DIV-BIZ2", &[object], WriteOptions::default());
    let (tree, _) = Biz2File::parse(&bytes).unwrap();
    let cov = tree.coverage();
    assert_eq!(cov.decoded, 4);
    assert_eq!(cov.unclaimed, 2);
    assert_eq!(cov.opaque, 3);
    assert_eq!(
        cov.framing + cov.decoded + cov.unclaimed + cov.opaque,
        bytes.len()
    );
    let f = tree.fields.iter().find(|f| f.what == "string").unwrap();
    assert_eq!(
        (f.offset, f.len, f.value.as_str()),
        (8 + 2 + 1 + 2 + 1, 4, "\"box\"")
    );
}

#[test]
fn patches_inherit_the_object_material() {
    let mut f = file_with(vec![prim(PrimitiveKind::TriStrip, grid(3), vec![])]);
    f.objects[0].front = Some(MaterialRef::Named("lib:object_mtl".into()));
    let parsed = parse(&f);
    assert_eq!(
        parsed.objects[0].front,
        Some(MaterialRef::Named("lib:object_mtl".into()))
    );
    let mut lib = Biz2File::new(FileKind::Materials, Header::default());
    lib.materials.push(MaterialDef {
        diffuse: Some([1.0, 0.0, 0.0]),
        ..MaterialDef::new("OBJECT_MTL")
    });
    let source = relicview::archive::MemorySource::new([
        (
            "G/VIDEO/A.BGF".to_string(),
            write_file(&f, WriteOptions::default()),
        ),
        (
            "G/MATERIAL/LIB.BMF".to_string(),
            write_file(&lib, WriteOptions::default()),
        ),
    ]);
    let archive = std::cell::RefCell::new(source.archive());
    let scene = pollster::block_on(relicview::archive::open_file(
        &archive,
        &source,
        "G/VIDEO/A.BGF",
    ))
    .unwrap()
    .scene
    .unwrap();
    let material = &scene.materials[scene.meshes[0].primitives[0].material.unwrap() as usize];
    assert_eq!(material.base_color, [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(material.name.as_deref(), Some("lib:object_mtl"));
}

/// A file of `n` zero-length PATCH chunks at the top level, where no PATCH belongs.
fn misplaced(n: usize) -> Vec<u8> {
    let mut bytes = b"DIV-BIZ2".to_vec();
    for _ in 0..n {
        bytes.extend([0x42, 0x00, 0x00]);
    }
    bytes.extend([0x05, 0x00, 0x00]);
    bytes
}

/// One OBJECT of `n` empty PATCHes.
fn empty_patches(n: usize) -> Vec<u8> {
    let mut bytes = b"DIV-BIZ2".to_vec();
    bytes.extend(0x8040u16.to_le_bytes());
    bytes.extend((n as u32 * 3).to_le_bytes());
    for _ in 0..n {
        bytes.extend([0x42, 0x00, 0x00]);
    }
    bytes.extend([0x05, 0x00, 0x00]);
    bytes
}

/// One OBJECT/PATCH holding `n` unknown 4-byte leaves, every 1,000th of them a LOD (which
/// a PATCH cannot hold): diagnostics spread over a million siblings.
fn spread_misplaced(n: usize) -> Vec<u8> {
    let mut leaves = Vec::with_capacity(n * 4);
    for k in 0..n {
        leaves.extend(if k % 1000 == 999 {
            [0x41, 0x00, 0x01, 0x00]
        } else {
            [0x77, 0x07, 0x01, 0x00]
        });
    }
    let mut patch = 0x8042u16.to_le_bytes().to_vec();
    patch.extend((leaves.len() as u32).to_le_bytes());
    patch.extend(leaves);
    let mut bytes = b"DIV-BIZ2".to_vec();
    bytes.extend(0x8040u16.to_le_bytes());
    bytes.extend((patch.len() as u32).to_le_bytes());
    bytes.extend(patch);
    bytes.extend([0x05, 0x00, 0x00]);
    bytes
}

/// Best of three parse + model builds, in seconds.
fn parse_and_build_time(bytes: &[u8]) -> f64 {
    (0..3)
        .map(|_| {
            let t = std::time::Instant::now();
            let mut tree = relicview::formats::pods::biz2::ChunkTree::parse(bytes);
            let file = Biz2File::build(&mut tree);
            std::hint::black_box((&tree, &file));
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
}

#[test]
fn a_hundred_thousand_misplaced_chunks_cost_linear_time_and_capped_diagnostics() {
    let (small, large) = (misplaced(10_000), misplaced(100_000));
    let (ts, tl) = (parse_and_build_time(&small), parse_and_build_time(&large));
    let ratio = tl / ts;
    // Ten times the chunks: about ten times the time when linear, a hundred when quadratic.
    assert!(
        ratio < 30.0,
        "100,000 chunks took {ratio:.1}× the time of 10,000 ({tl:.3} s vs {ts:.3} s)"
    );
    let (tree, file) = Biz2File::parse(&large).unwrap();
    assert_eq!(tree.len(), 100_001);
    assert_eq!(file.diagnostics.len(), relicview::inspect::MAX_DIAGNOSTICS);
    assert_eq!(
        file.diagnostics.len() + file.diagnostics_dropped,
        100_000,
        "every misplaced chunk is counted"
    );
    assert_eq!(file.diagnostics[499].path, "PATCH[499]");
    assert_eq!(
        tree.path(99_999),
        "PATCH[99999]",
        "paths know each chunk's ordinal"
    );
}

#[test]
fn floods_of_empty_containers_and_spread_out_findings_cost_linear_time() {
    for (what, make) in [
        ("empty PATCHes", empty_patches as fn(usize) -> Vec<u8>),
        ("leaves with a misplaced LOD every 1,000", spread_misplaced),
    ] {
        let (small, large) = (make(100_000), make(1_000_000));
        let (ts, tl) = (parse_and_build_time(&small), parse_and_build_time(&large));
        let ratio = tl / ts;
        eprintln!("# {what}: 1,000,000 in {tl:.3} s, 100,000 in {ts:.3} s ({ratio:.1}×)");
        assert!(
            ratio < 30.0,
            "{what}: 1,000,000 took {ratio:.1}× the time of 100,000 ({tl:.3} s vs {ts:.3} s)"
        );
    }
    // Paths of findings far apart among a million siblings are right, and counted once.
    let (_, file) = Biz2File::parse(&spread_misplaced(1_000_000)).unwrap();
    assert_eq!(file.diagnostics.len(), relicview::inspect::MAX_DIAGNOSTICS);
    assert_eq!(file.diagnostics_dropped, 500);
    assert_eq!(file.diagnostics[499].path, "OBJECT[0]/PATCH[0]/LOD[499]");
    assert_eq!(file.diagnostics[499].offset, 8 + 6 + 6 + 4 * 499_999);
}

#[test]
fn a_model_stops_growing_at_twice_its_file_and_says_where() {
    // 2,000,000 empty PATCHes: 6 MB of file, a quarter of a gigabyte of model if all were built.
    let bytes = empty_patches(2_000_000);
    let (_, file) = Biz2File::parse(&bytes).unwrap();
    let built = file.objects[0].lods[0].patches.len();
    let budget = relicview::formats::pods::biz2::model::model_budget(bytes.len());
    assert!(
        built * std::mem::size_of::<relicview::formats::pods::biz2::Patch>() <= budget,
        "{built} patches built"
    );
    assert!(
        built > 10_000,
        "small files still get their elements: {built}"
    );
    let d = file
        .diagnostics
        .iter()
        .find(|d| d.message.contains("not built"))
        .expect("the stop is a diagnostic");
    assert_eq!(d.offset, 8 + 6 + 3 * built, "at the first PATCH not built");
    assert!(
        d.message.contains(&format!(
            "{} elements in all were not built",
            2_000_000 - built
        )),
        "{}",
        d.message
    );
    assert_eq!(d.path, format!("OBJECT[0]/PATCH[{built}]"));
    // A real model of the same size is built whole.
    let real = write_file(&relicview::demo::large_model(120), WriteOptions::default());
    let (_, model) = Biz2File::parse(&real).unwrap();
    assert!(model.diagnostics.is_empty(), "{:?}", model.diagnostics);
    assert_eq!(model.objects[0].lods[0].patches.len(), 120);
}

/// A file damaged where it ends shows everything before the damage: cut short by a byte
/// (the trailer), with junk after its trailer, or cut inside its last vertex block.
#[test]
fn damaged_files_draw_what_comes_before_the_damage() {
    use relicview::archive::Archive;
    use relicview::formats::registry::{self, Purpose};
    let grid = large_model_like(4);
    let whole = write_file(&grid, WriteOptions::default());
    let triangles = |bytes: Vec<u8>| {
        let doc = registry::open("T.BGF", bytes, Purpose::Show);
        let damaged = doc.damaged();
        let error = doc.error().cloned();
        // The summary carries the damage as its error (and only then an error key).
        let info: serde_json::Value =
            serde_json::from_str(&relicview::formats::Described::alone(&*doc).info_json()).unwrap();
        assert_eq!(
            info["error"]["offset"].as_u64(),
            error.as_ref().map(|e| e.offset as u64),
            "{info}"
        );
        assert_eq!(info.get("error").is_some(), error.is_some());
        let built = doc.build_scene(&Archive::detached());
        let n = built.scene.as_ref().map_or(0, |s| s.triangle_count(0));
        let rows = doc.info(&built.found).rows();
        (n, damaged, error, doc.diagnostics().to_vec(), rows)
    };
    let (all, damaged, error, _, _) = triangles(whole.clone());
    assert!(!damaged && error.is_none() && all == 4 * 2);
    let (n, damaged, error, _, rows) = triangles(whole[..whole.len() - 1].to_vec());
    assert!(damaged && error.is_some());
    assert_eq!(n, all, "cut by one byte: every triangle drawn");
    assert!(
        rows.iter().any(|r| r.label == "damaged"),
        "the info says so"
    );
    let mut junk = whole.clone();
    junk.extend([0xAB; 6]);
    let (n, damaged, error, _, _) = triangles(junk);
    assert!(damaged && error.unwrap().offset == whole.len());
    assert_eq!(n, all);
    // Cut in the middle of the last patch's vertices: the patches before it draw.
    let tree = Biz2File::parse(&whole).unwrap().0;
    let last_vertices = tree
        .iter()
        .filter(|c| tags::vertex_layout(c.id).is_some())
        .last()
        .unwrap();
    let cut = last_vertices.payload_offset + 20;
    let (n, damaged, error, _, _) = triangles(whole[..cut].to_vec());
    assert!(damaged);
    assert_eq!(n, all - 2, "three of four patches");
    assert!(
        error.as_ref().unwrap().message.contains("cut short"),
        "{error:?}"
    );
    // Garbage straight after the magic is not damage: nothing was read.
    let mut garbage = whole[..8].to_vec();
    garbage.extend([0xFF; 40]);
    let (n, damaged, error, _, _) = triangles(garbage);
    assert!(!damaged && error.is_some() && n == 0);
}

/// Four patches of one quad each, side by side.
fn large_model_like(patches: usize) -> Biz2File {
    let prims = (0..patches)
        .map(|k| {
            let x = k as f32 * 2.0;
            prim(
                PrimitiveKind::PMesh,
                vec![
                    [x, 0.0, 0.0],
                    [x + 1.0, 0.0, 0.0],
                    [x + 1.0, 1.0, 0.0],
                    [x, 1.0, 0.0],
                ],
                vec![Connectivity::Faces {
                    points_per_face: 4,
                    indices: vec![0, 1, 2, 3],
                }],
            )
        })
        .collect::<Vec<_>>();
    let mut f = file_with(Vec::new());
    let patch = f.objects[0].lods[0].patches.remove(0);
    f.objects[0].lods[0].patches = prims
        .into_iter()
        .enumerate()
        .map(|(k, p)| Patch {
            name: Some(format!("p{k}")),
            primitives: vec![p],
            ..patch.clone()
        })
        .collect();
    f
}
