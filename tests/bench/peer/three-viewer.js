// The peer of the cold-link benchmark (tests/bench/cold-link.mjs): a minimal three.js
// model viewer as people publish one, bundled and minified by esbuild. Its address names
// the model and the view: `index.html#glb=MODEL.glb&cam=px,py,pz,tx,ty,tz,fov&bg=r,g,b`
// (relicview's camera and background, so that both pages shade the same pixels). It shows
// the model as three-gltf-viewer does (an ambient and a directional light), reads one
// pixel back so that the frame is rasterised, and notes when on its clock
// (`window.firstFrameAt`, ms from navigation start).
import {
  AmbientLight,
  Box3,
  Color,
  DirectionalLight,
  PerspectiveCamera,
  Scene,
  SRGBColorSpace,
  Vector3,
  WebGLRenderer,
} from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

const params = new URLSearchParams(location.hash.slice(1));
const numbers = name => (params.get(name) || '').split(',').filter(Boolean).map(Number);
const canvas = document.getElementById('view');
const width = canvas.clientWidth;
const height = canvas.clientHeight;
const renderer = new WebGLRenderer({ canvas, antialias: true });
renderer.setPixelRatio(1);
renderer.setSize(width, height, false);
const gl = renderer.getContext();
const background = numbers('bg').length === 3 ? numbers('bg') : [0x1a, 0x1d, 0x24];

new GLTFLoader().loadAsync(params.get('glb')).then(
  gltf => {
    const scene = new Scene();
    scene.background = new Color().setRGB(...background.map(c => c / 255), SRGBColorSpace);
    scene.add(new AmbientLight(0xffffff, 0.6));
    const sun = new DirectionalLight(0xffffff, 2.5);
    sun.position.set(0.5, 0, 0.866);
    scene.add(sun);
    scene.add(gltf.scene);
    const box = new Box3().setFromObject(gltf.scene);
    const size = box.getSize(new Vector3()).length();
    const cam = numbers('cam');
    const camera = new PerspectiveCamera(
      cam.length === 7 ? cam[6] : 45,
      width / height,
      size / 100,
      size * 100,
    );
    if (cam.length === 7) camera.position.set(cam[0], cam[1], cam[2]);
    else camera.position.copy(box.getCenter(new Vector3())).add(new Vector3(size / 2, size / 5, size / 2));
    camera.lookAt(cam.length === 7 ? new Vector3(cam[3], cam[4], cam[5]) : box.getCenter(new Vector3()));
    renderer.render(scene, camera);
    gl.readPixels(width >> 1, height >> 1, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
    window.firstFrameAt = performance.now();
    // After the clock: the pixels the model covers (not within 2 of the background).
    window.covered = () => {
      renderer.render(scene, camera);
      const all = new Uint8Array(width * height * 4);
      gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, all);
      let n = 0;
      for (let i = 0; i < all.length; i += 4)
        if (
          Math.abs(all[i] - background[0]) > 2 ||
          Math.abs(all[i + 1] - background[1]) > 2 ||
          Math.abs(all[i + 2] - background[2]) > 2
        )
          n++;
      return n;
    };
  },
  err => {
    window.failed = String(err);
  },
);
