//! A frame drawn off the screen for a capture (`crate::webgl::view::capture`): into a multisampled
//! framebuffer at a size of its own (the canvas's is multisampled too, so a capture at the
//! view's size matches it edge for edge), resolved into a plain one and read back.
//!
//! three-d 0.19 draws into a multisampled target only through its own `render` calls, not
//! as the `RenderTarget` the renderer's passes take, so the framebuffers are made here with
//! GL's own calls and handed to three-d as a `RenderTarget` for the frame.
//!
//! Every GL call here is `unsafe` in glow because a WebGL object's name is not checked: each
//! names only objects made here on this context and deleted once, in `Drop`; sizes were
//! checked against the GPU's limits first, and read-backs go into slices of their size.

use three_d::context::{self as gl, HasContext};
use three_d::{Context, RenderTarget};

/// Samples per pixel, as many as the canvas's antialiasing takes where the GPU has them.
const SAMPLES: i32 = 4;

pub(crate) struct Offscreen {
    context: Context,
    width: u32,
    height: u32,
    /// The framebuffer drawn into (its colour and depth multisampled), and the one it is
    /// resolved into to be read.
    drawn: Option<gl::Framebuffer>,
    resolved: gl::Framebuffer,
    renderbuffers: Vec<gl::Renderbuffer>,
}

/// The largest side the GPU draws at once: its renderbuffers' and viewports' limits.
pub(crate) fn max_size(context: &Context) -> u32 {
    // SAFETY: reads two limits of this context.
    let (renderbuffer, viewport) = unsafe {
        let mut dims = [0i32; 2];
        context.get_parameter_i32_slice(gl::MAX_VIEWPORT_DIMS, &mut dims);
        (
            context.get_parameter_i32(gl::MAX_RENDERBUFFER_SIZE),
            dims[0].min(dims[1]),
        )
    };
    renderbuffer.min(viewport).max(1) as u32
}

impl Offscreen {
    pub(crate) fn new(context: &Context, width: u32, height: u32) -> Result<Offscreen, String> {
        let max = max_size(context);
        if width == 0 || height == 0 || width > max || height > max {
            return Err(format!(
                "{width} × {height} pixels is more than this GPU draws at once ({max} a side)"
            ));
        }
        let (w, h) = (width as i32, height as i32);
        let no_framebuffer =
            |e: String| format!("the GPU gave no framebuffer for the capture: {e}");
        // SAFETY: makes framebuffers on this context (see the module's note).
        let (drawn, resolved) = unsafe {
            (
                context.create_framebuffer().map_err(no_framebuffer)?,
                context.create_framebuffer().map_err(no_framebuffer)?,
            )
        };
        let mut offscreen = Offscreen {
            context: context.clone(),
            width,
            height,
            drawn: Some(drawn),
            resolved,
            renderbuffers: Vec::new(),
        };
        // SAFETY: reads one limit of this context.
        let samples = SAMPLES.min(unsafe { context.get_parameter_i32(gl::MAX_SAMPLES) });
        offscreen.attach(drawn, gl::COLOR_ATTACHMENT0, gl::RGBA8, samples, w, h)?;
        offscreen.attach(
            drawn,
            gl::DEPTH_ATTACHMENT,
            gl::DEPTH_COMPONENT24,
            samples,
            w,
            h,
        )?;
        offscreen.attach(resolved, gl::COLOR_ATTACHMENT0, gl::RGBA8, 0, w, h)?;
        Ok(offscreen)
    }

    /// A renderbuffer of `format` (multisampled when `samples` > 0) as `attachment` of
    /// `framebuffer`, which must then be complete.
    fn attach(
        &mut self,
        framebuffer: gl::Framebuffer,
        attachment: u32,
        format: u32,
        samples: i32,
        w: i32,
        h: i32,
    ) -> Result<(), String> {
        let gl = &self.context;
        // SAFETY: a renderbuffer made here, kept to be deleted in Drop; the framebuffer is
        // one of this capture's; the size is within the GPU's limits (checked in `new`).
        unsafe {
            let rb = gl
                .create_renderbuffer()
                .map_err(|e| format!("the GPU gave no renderbuffer for the capture: {e}"))?;
            self.renderbuffers.push(rb);
            gl.bind_renderbuffer(gl::RENDERBUFFER, Some(rb));
            if samples > 0 {
                gl.renderbuffer_storage_multisample(gl::RENDERBUFFER, samples, format, w, h);
            } else {
                gl.renderbuffer_storage(gl::RENDERBUFFER, format, w, h);
            }
            gl.bind_renderbuffer(gl::RENDERBUFFER, None);
            gl.bind_framebuffer(gl::FRAMEBUFFER, Some(framebuffer));
            gl.framebuffer_renderbuffer(gl::FRAMEBUFFER, attachment, gl::RENDERBUFFER, Some(rb));
            let status = gl.check_framebuffer_status(gl::FRAMEBUFFER);
            gl.bind_framebuffer(gl::FRAMEBUFFER, None);
            if attachment != gl::COLOR_ATTACHMENT0 || samples == 0 {
                // (A colour attachment alone may be incomplete until its depth comes.)
                if status != gl::FRAMEBUFFER_COMPLETE {
                    return Err(format!(
                        "the GPU cannot draw a {w} × {h} capture (framebuffer status {status:#x}): a smaller scale or window"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Draw into the capture with `draw`, given it as the render target; → its pixels, RGBA
    /// rows top first.
    pub(crate) fn draw(mut self, draw: impl FnOnce(&RenderTarget)) -> Vec<u8> {
        let Some(framebuffer) = self.drawn.take() else {
            return Vec::new();
        };
        let target =
            RenderTarget::from_framebuffer(&self.context, self.width, self.height, framebuffer);
        draw(&target);
        // Taken back from three-d, which would delete it when the target drops.
        self.drawn = target.into_framebuffer();
        self.read()
    }

    /// The drawn framebuffer resolved into the plain one and read, rows turned top first.
    fn read(&self) -> Vec<u8> {
        let (w, h) = (self.width as i32, self.height as i32);
        let row = self.width as usize * 4;
        let mut pixels = vec![0u8; row * self.height as usize];
        let gl = &self.context;
        // SAFETY: this capture's framebuffers; the read fills a slice of exactly w × h RGBA.
        unsafe {
            gl.bind_framebuffer(gl::READ_FRAMEBUFFER, self.drawn);
            gl.bind_framebuffer(gl::DRAW_FRAMEBUFFER, Some(self.resolved));
            gl.disable(gl::SCISSOR_TEST);
            gl.blit_framebuffer(0, 0, w, h, 0, 0, w, h, gl::COLOR_BUFFER_BIT, gl::NEAREST);
            gl.bind_framebuffer(gl::READ_FRAMEBUFFER, Some(self.resolved));
            gl.read_pixels(
                0,
                0,
                w,
                h,
                gl::RGBA,
                gl::UNSIGNED_BYTE,
                gl::PixelPackData::Slice(Some(&mut pixels)),
            );
            gl.bind_framebuffer(gl::READ_FRAMEBUFFER, None);
            gl.bind_framebuffer(gl::DRAW_FRAMEBUFFER, None);
        }
        // GL's rows run bottom up.
        let mut flipped = Vec::with_capacity(pixels.len());
        for r in pixels.chunks_exact(row).rev() {
            flipped.extend_from_slice(r);
        }
        flipped
    }
}

impl Drop for Offscreen {
    fn drop(&mut self) {
        let gl = &self.context;
        // SAFETY: deletes only what this capture made, once.
        unsafe {
            if let Some(f) = self.drawn.take() {
                gl.delete_framebuffer(f);
            }
            gl.delete_framebuffer(self.resolved);
            for rb in self.renderbuffers.drain(..) {
                gl.delete_renderbuffer(rb);
            }
        }
    }
}
