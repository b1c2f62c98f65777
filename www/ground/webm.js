// @ts-check
// A capture's frames as a WebM video: each frame encoded by the browser's own VP9 (or VP8)
// encoder (WebCodecs) and stamped with its own time, so the video has exactly the frame rate
// and length asked for however long each frame took to draw; Mediabunny writes the WebM.
// Loaded only when a video is made (assets.js: `webm`), so a page that makes none never
// downloads it.

import {
  BufferTarget,
  Output,
  QUALITY_HIGH,
  VideoSample,
  VideoSampleSource,
  WebMOutputFormat,
  canEncodeVideo,
  getFirstEncodableVideoCodec,
} from '../../node_modules/mediabunny/dist/modules/src/index.js';

// A WebM of `width` × `height` at `fps`, keeping alpha where `transparent` asks and the
// browser's encoder can (`alpha` says whether it does). Rejects, saying what the browser
// lacks, where it cannot encode such a video at all.
/** @type {WebmModule['startWebm']} */
export async function startWebm({ width, height, fps, transparent }) {
  if (typeof VideoEncoder === 'undefined')
    throw new Error(
      'this browser cannot encode video (it has no WebCodecs VideoEncoder): capture PNG frames instead',
    );
  const size = { width, height, frameRate: fps, quality: QUALITY_HIGH };
  const codec = await getFirstEncodableVideoCodec(['vp9', 'vp8'], size);
  if (!codec)
    throw new Error(
      `this browser has no VP9 or VP8 encoder for a ${width} × ${height} video: capture PNG frames instead`,
    );
  const alpha = transparent && (await canEncodeVideo(codec, { ...size, alpha: 'keep' }));
  const output = new Output({ format: new WebMOutputFormat(), target: new BufferTarget() });
  const source = new VideoSampleSource({ codec, quality: QUALITY_HIGH, alpha: alpha ? 'keep' : 'discard' });
  output.addVideoTrack(source, { frameRate: fps });
  await output.start();
  return {
    codec,
    alpha,
    async add(rgba, i) {
      const sample = new VideoSample(rgba, {
        format: 'RGBA',
        codedWidth: width,
        codedHeight: height,
        timestamp: i / fps,
        duration: 1 / fps,
      });
      try {
        // (Resolves once the encoder takes more: a long capture never queues every frame.)
        await source.add(sample);
      } finally {
        sample.close();
      }
    },
    async finish() {
      await output.finalize();
      const bytes = output.target.buffer;
      if (!bytes) throw new Error('the video came out empty');
      return new Blob([bytes], { type: 'video/webm' });
    },
    async cancel() {
      await output.cancel();
    },
  };
}
