//! What the pointer finds in the viewport: picks, the outline of a selection, the measuring
//! tape and the sizes of what is on show.

use super::Viewer;
use crate::scene::{row_of, RecordBytes};
use crate::view::Side;
use crate::web::to_js;
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Viewer {
    /// What is under canvas pixel (x, y) (top-left origin): {primitive, patch, source,
    /// triangleInSource, distance, start, end}: the records of the primitive, of the node
    /// that drew it and of the run its triangle came from, and start..end the bytes of the
    /// face that made the triangle; or null.
    #[wasm_bindgen(unchecked_return_type = "Picked | null")]
    pub fn pick(&self, x: f32, y: f32) -> Result<JsValue, JsValue> {
        let Some((shown, hit)) = self.renderer.pick(x, y, self.animation_time()) else {
            return Ok(JsValue::NULL);
        };
        // Whose records the hit names: the difference view draws A's geometry, and B's on
        // layers of its own.
        let side = match shown {
            Side::Difference
                if hit
                    .layer
                    .is_some_and(|l| self.difference_layers_from_b.contains(&l)) =>
            {
                Side::B
            }
            Side::Difference => Side::A,
            s => s,
        };
        // The scene names records by their bytes; the page, by the inspector's rows.
        let rows = &self.records[if side == Side::B { 1 } else { 0 }];
        let row = |r: Option<RecordBytes>| r.and_then(|r| row_of(rows, r));
        // The face's own record, else its primitive's, else the node's nearest (geometry
        // brought from another file is stood for by what brought it).
        let source = hit.source.map(|s| s.record).or(hit.primitive).or(hit.node);
        let (start, end) = match hit.source {
            Some(run) => run.face_bytes(hit.triangle),
            None => hit
                .primitive
                .or(hit.node)
                .map_or((0, 0), |[start, end]| (start, end)),
        };
        let triangle_in_source = hit.source.map_or(hit.triangle, |s| hit.triangle - s.first);
        to_js(&Picked {
            primitive: row(hit.primitive),
            patch: row(hit.node),
            source: row(source),
            triangle_in_source,
            distance: hit.distance,
            start,
            end,
            side,
        })
    }

    /// Outline, on one side of a comparison ("a" or "b"), the geometry of a record (null
    /// clears), or with `start`..`end` one face of it; A's outline shows in the difference
    /// view too. Returns the triangles outlined on that side.
    #[wasm_bindgen(js_name = setHighlightOn)]
    pub fn set_highlight_on(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Side")] side: JsValue,
        record: Option<u32>,
        start: Option<usize>,
        end: Option<usize>,
    ) -> Result<usize, JsValue> {
        let side: Side = serde_wasm_bindgen::from_value(side)?;
        let seconds = self.animation_time();
        let rows = &self.records[if side == Side::B { 1 } else { 0 }];
        let target = record
            .and_then(|r| record_bytes(rows, r))
            .map(|r| (r, start.zip(end)));
        if side == Side::A {
            self.renderer
                .set_highlight_on(Side::Difference, target, seconds);
        }
        Ok(self.renderer.set_highlight_on(side, target, seconds))
    }

    /// Triangles outlined on one side of a comparison ("a", "b" or "difference").
    #[wasm_bindgen(js_name = highlightedTrianglesOn)]
    pub fn highlighted_triangles_on(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Side")] side: JsValue,
    ) -> Result<usize, JsValue> {
        let side: Side = serde_wasm_bindgen::from_value(side)?;
        Ok(self.renderer.highlighted_triangles_on(side))
    }

    /// The point of the surface under canvas pixel (x, y) to measure from (a corner of the
    /// face there when the pointer is within a few pixels of it): [x, y, z], or undefined.
    #[wasm_bindgen(js_name = surfacePoint)]
    pub fn surface_point(&self, x: f32, y: f32) -> Option<Vec<f32>> {
        self.renderer
            .surface_point(x, y, self.animation_time())
            .map(|p| p.to_vec())
    }
    /// The canvas pixel [x, y] (top-left origin) the world point (x, y, z) is drawn at, or
    /// undefined behind the eye.
    pub fn project(&self, x: f32, y: f32, z: f32) -> Option<Vec<f32>> {
        self.renderer
            .project([x, y, z])
            .map(|(px, py)| vec![px, py])
    }
    /// Mark the points measured between: 0, 3 or 6 numbers (none, a start, both ends).
    #[wasm_bindgen(js_name = setMeasure)]
    pub fn set_measure(&mut self, flat: Vec<f32>) {
        self.renderer
            .set_measure(flat.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect());
    }
    /// What a length of the scene on show reads: in its units, and in metres by each
    /// reading of the file's unit.
    #[wasm_bindgen(js_name = lengthText)]
    pub fn length_text(&self, length: f32) -> String {
        crate::view::measure::length_text(
            length,
            self.renderer.scene().map_or(&[][..], |s| &s.units),
        )
    }
    /// {scene: [x, y, z], selection: [x, y, z] or null, gridStep}: the sizes of the boxes
    /// around what is on show and around the outlined selection, and the grid's step.
    #[wasm_bindgen(unchecked_return_type = "Sizes")]
    pub fn sizes(&self) -> Result<JsValue, JsValue> {
        let (scene, selection) = self.renderer.sizes();
        to_js(&Sizes {
            scene,
            selection,
            grid_step: self.renderer.grid_step(),
        })
    }

    /// The LOD number (as in `setOptions({lod})`) that shows the node of inspector record
    /// `record`, if that record is a level of detail.
    #[wasm_bindgen(js_name = lodOf)]
    pub fn lod_of(&self, record: u32) -> Option<usize> {
        self.renderer
            .lod_index_of(record_bytes(&self.records[0], record)?)
    }

    /// Outline the geometry of an inspector record (a node, primitive or index list); null
    /// clears. Returns the number of triangles outlined.
    #[wasm_bindgen(js_name = setHighlight)]
    pub fn set_highlight(&mut self, record: Option<u32>) -> usize {
        let record = record.and_then(|r| record_bytes(&self.records[0], r));
        self.renderer.set_highlight(record, self.animation_time())
    }

    /// Outline the triangles of one face: those made from the bytes start..end of index
    /// record `record` (what `pick` returned). Returns the number outlined.
    #[wasm_bindgen(js_name = setHighlightBytes)]
    pub fn set_highlight_bytes(&mut self, record: u32, start: usize, end: usize) -> usize {
        let Some(record) = record_bytes(&self.records[0], record) else {
            return 0;
        };
        self.renderer
            .set_highlight_face(record, start, end, self.animation_time())
    }

    /// Triangles outlined in the LOD on show.
    #[wasm_bindgen(js_name = highlightedTriangles)]
    pub fn highlighted_triangles(&self) -> usize {
        self.renderer.highlighted_triangles()
    }
}

/// What a click hit: the records of the primitive, of the node that drew it and of the run
/// its triangle came from, and the bytes of the face that made the triangle.
#[derive(Serialize, tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Picked {
    primitive: Option<u32>,
    patch: Option<u32>,
    source: Option<u32>,
    triangle_in_source: u32,
    distance: f32,
    start: usize,
    end: usize,
    /// The file whose records these are ("a": the file on show).
    side: Side,
}

/// The sizes of the boxes around what is on show and around the outlined selection, and
/// the grid's step.
#[derive(Serialize, tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Sizes {
    scene: Option<[f32; 3]>,
    selection: Option<[f32; 3]>,
    grid_step: f32,
}

/// The bytes of inspector row `row`, from the rows' `[offset, end)` (`rows[i]`: row `i`'s).
fn record_bytes(rows: &[(usize, usize)], row: u32) -> Option<RecordBytes> {
    rows.get(row as usize).map(|&(start, end)| [start, end])
}
