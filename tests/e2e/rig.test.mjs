// FF7 characters leave as rigs, every clip as the game plays it. The real field files and
// characters beside the repo, and generated ones (a cross product of channel modes per axis:
// rotations fixed or animated, translations none, static or animated; still clips; clips
// beyond a character's three; a part on every bone), are exported by the CLI and the page;
// where each joint must be at each frame of each clip is computed here, from the bytes, by
// the tests' own reader (ff7.mjs). Checked by the Khronos validator, three.js's GLTFLoader
// (in Chromium) and Debian's Blender, headless.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync, copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import validator from 'gltf-validator';
import { bin, repo, startServer, launch, newPage, withThree, blenderImports } from './harness.mjs';
import { readBsx, readBcx, assemble, jointsAt, writeBsx, writeBcx, crossClip, skeleton } from './ff7.mjs';
import { scratchDir } from './scratch.mjs';

const shared = join(repo, '../shared/testdata');
let dir, out, server, browser;
// Every export checked: {name, glb, rig (the model as assembled), prefix (its clips' name)}.
const exports = [];

// A generated field file and the character it names: TIFA.BCX (five bones, a part on each,
// three clips), and GEN.BSX with a model of its own (six bones, parts on every bone, four
// clips: a one-frame rest, two animated ones and a still one whose statics move the root),
// Tifa with a part and two clips of her own after her BCX's three, and a one-bone prop.
function generate(folder) {
  const tifa = {
    bones: skeleton(5),
    parts: [0, 1, 2, 3, 4].map(bone => ({ bone })),
    scale: 512,
    animations: [crossClip(5, 1, 6), crossClip(5, 5, 7), crossClip(5, 3, 8)],
  };
  writeFileSync(join(folder, 'TIFA.BCX'), writeBcx(tifa));
  const own = {
    character: 0,
    scale: 1024,
    starts: [0, 0, 0],
    bones: skeleton(6),
    parts: [0, 1, 2, 3, 4, 5].map(bone => ({ bone })),
    animations: [crossClip(6, 1, 0), crossClip(6, 6, 1), crossClip(6, 2, 2, true), crossClip(6, 4, 3)],
  };
  const character = {
    character: 4,
    scale: 2048,
    starts: [0xff, 5, 3],
    bones: [],
    parts: [{ bone: 2 }],
    animations: [crossClip(5, 5, 4), crossClip(5, 2, 5, true)],
  };
  const prop = {
    character: 0,
    scale: 4096,
    starts: [0, 0, 0],
    bones: skeleton(1),
    parts: [{ bone: 0 }],
    animations: [crossClip(1, 3, 9), crossClip(1, 2, 10, true)],
  };
  writeFileSync(join(folder, 'GEN.BSX'), writeBsx([own, character, prop]));
}

before(async () => {
  dir = scratchDir('rig');
  out = scratchDir('rig-out');
  for (const f of readdirSync(join(shared, 'ff7')))
    copyFileSync(join(shared, 'ff7', f), join(dir, f.replace('_u.BSX', '.BSX').replace(/_u$/, '')));
  for (const f of ['CLOUD.BCX', 'BALLET.BCX']) copyFileSync(join(shared, 'ff7-disc', f), join(dir, f));
  generate(dir);
  const bcx = name => {
    try {
      return readBcx(readFileSync(join(dir, name)));
    } catch {
      return null;
    }
  };
  for (const file of readdirSync(dir)
    .filter(f => f.endsWith('.BSX'))
    .sort()) {
    readBsx(readFileSync(join(dir, file))).forEach((model, k) => {
      const rig = assemble(model, bcx);
      if (!rig.parts.some(Boolean) || !rig.animations.some(Boolean)) return;
      exports.push({
        name: `${file} model ${k}`,
        args: [join(dir, file), '--model', String(k)],
        rig,
        prefix: `model ${k}`,
        // A playable character's (global id 1..9): its first three clips are named.
        character: model.character >= 1 && model.character <= 9,
      });
    });
  }
  for (const file of ['CLOUD.BCX', 'BALLET.BCX', 'TIFA.BCX'])
    exports.push({
      name: file,
      args: [join(dir, file)],
      rig: bcx(file),
      prefix: file.replace('.BCX', ''),
      character: true,
    });
  for (const e of exports) {
    for (const rig of ['skin', 'nodes']) {
      const path = join(out, `${e.name.replaceAll(' ', '_')}.${rig}.glb`);
      execFileSync(bin, ['export', ...e.args, '--root', dir, '--rig', rig, '-o', path], { encoding: 'utf8' });
      e[rig] = readFileSync(path);
    }
  }
  server = await startServer(dir);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

function gltfJson(glb) {
  return JSON.parse(glb.subarray(20, 20 + glb.readUInt32LE(12)).toString('utf8'));
}

// Per clip (by its index in the rig), per frame, every joint where the notes put it.
// A clip's name in the export: a character's stand, walk and run say so.
const clipName = (e, n) =>
  `${e.prefix} animation ${n}${e.character && n < 3 ? ` (${['stand', 'walk', 'run'][n]})` : ''}`;

function expected(e) {
  const clips = new Map();
  e.rig.animations.forEach((anim, n) => {
    if (!anim) return;
    clips.set(
      clipName(e, n),
      Array.from({ length: Math.max(anim.frames, 1) }, (_, f) => jointsAt(e.rig, anim, f)),
    );
  });
  return clips;
}

// 0.1 % of the model's height (its joints' extent at rest).
function tolerance(e) {
  const first = e.rig.animations.find(Boolean);
  const ys = jointsAt(e.rig, first, 0)
    .filter(Boolean)
    .map(p => p[1]);
  return Math.max(1e-3 * (Math.max(...ys) - Math.min(...ys)), 1e-4);
}

function near(actual, want, tol, what) {
  assert.ok(actual, `${what}: no such joint`);
  const d = Math.hypot(actual[0] - want[0], actual[1] - want[1], actual[2] - want[2]);
  assert.ok(
    d <= tol,
    `${what}: at [${actual.map(x => x.toFixed(3))}], expected [${want.map(x => x.toFixed(3))}] (off by ${d.toFixed(4)}, tolerance ${tol.toFixed(4)})`,
  );
}

test('every FF7 model exports as a skin the Khronos validator finds nothing in, with only its own clips, named as the game has them', async () => {
  assert.ok(exports.length >= 12, `models exported: ${exports.map(e => e.name)}`);
  for (const e of exports) {
    for (const rig of ['skin', 'nodes']) {
      const report = await validator.validateBytes(new Uint8Array(e[rig]), { maxIssues: 1000 });
      const unused = report.issues.messages.filter(m => m.code === 'UNUSED_OBJECT');
      assert.deepEqual(
        [report.issues.numErrors, report.issues.numWarnings, unused.length],
        [0, 0, 0],
        `${e.name} (${rig}): ${JSON.stringify(report.issues.messages.slice(0, 5))}`,
      );
    }
    const json = gltfJson(e.skin);
    const bones = e.rig.bones.map((b, i) => (b ? `bone ${i}` : null)).filter(Boolean);
    assert.equal(json.skins?.length, 1, `${e.name}: one skin`);
    assert.deepEqual(
      json.skins[0].joints.map(j => json.nodes[j].name),
      bones,
      `${e.name}: the joints are the bones, by name`,
    );
    assert.equal(json.meshes.length, 1, `${e.name}: the parts merged into one mesh`);
    const materials = json.meshes[0].primitives.map(p => p.material);
    assert.equal(new Set(materials).size, materials.length, `${e.name}: a primitive per material`);
    const clips = [...expected(e).keys()];
    assert.deepEqual(
      json.animations.map(a => a.name).sort(),
      clips.sort(),
      `${e.name}: one animation per clip of this model, and no other's`,
    );
    // Every clip lasts its frames, a still one too.
    e.rig.animations.forEach((anim, n) => {
      if (!anim) return;
      const a = json.animations.find(x => x.name === clipName(e, n));
      const end = Math.max(...a.samplers.map(s => json.accessors[s.input].max[0]));
      assert.ok(
        Math.abs(end - Math.max(anim.frames, 1) / 30) < 1e-6,
        `${e.name} clip ${n}: lasts ${end} s, has ${anim.frames} frames`,
      );
    });
    const nodes = gltfJson(e.nodes);
    assert.equal(nodes.skins, undefined, `${e.name}: --rig nodes writes no skin`);
    // Both rigs draw the same: the same triangles, materials (the game's lighting as unlit
    // vertex colours, the face pages with their eyes and mouths) and pictures.
    const triangles = j =>
      j.meshes.flatMap(m => m.primitives).reduce((n, p) => n + j.accessors[p.indices].count / 3, 0);
    const names = list => (list || []).map(x => x.name).sort();
    assert.equal(triangles(json), triangles(nodes), `${e.name}: the triangles`);
    assert.deepEqual(names(json.materials), names(nodes.materials), `${e.name}: the materials`);
    assert.deepEqual(names(json.images), names(nodes.images), `${e.name}: the pictures`);
    assert.deepEqual(json.extensionsUsed, nodes.extensionsUsed, `${e.name}: the extensions`);
    assert.ok(
      nodes.nodes.filter(n => n.mesh !== undefined).length >= 1 &&
        nodes.meshes.length > 1 === e.rig.parts.filter(Boolean).length > 1,
      `${e.name}: --rig nodes keeps a mesh per part`,
    );
  }
  // The clips the issue names hold the root elsewhere than the first animation does (and
  // every joint of them is checked in the tests below).
  for (const [name, clip] of [
    ['MD1_1.BSX model 3', 3],
    ['NMKIN_1.BSX model 7', 4],
    ['ELEVTR1.BSX model 1', 5],
    ['ELEVTR1.BSX model 1', 6],
    ['ELEVTR1.BSX model 1', 7],
  ]) {
    const e = exports.find(x => x.name === name);
    assert.ok(e?.rig.animations[clip], `${name} clip ${clip} is exported`);
    const [rest, held] = [
      jointsAt(e.rig, e.rig.animations[0], 0)[0],
      jointsAt(e.rig, e.rig.animations[clip], 0)[0],
    ];
    assert.ok(
      Math.hypot(rest[0] - held[0], rest[1] - held[1], rest[2] - held[2]) > 1,
      `${name} clip ${clip}: the root at [${held}], at rest [${rest}]`,
    );
  }
  const lit = gltfJson(exports.find(e => e.name === 'MD1_1.BSX model 3').skin);
  assert.ok(lit.extensionsUsed.includes('KHR_materials_unlit'), "the game's lighting goes out in the skin");
  // The clip named in the notes: MD1_1's model 3 holds its root at (0, −261, 2) for clip 3.
  const md1 = exports.find(e => e.name === 'MD1_1.BSX model 3');
  const joints = expected(md1).get('model 3 animation 3')[0];
  near(joints[0], [0, 261 * 0.25, -2 * 0.25], 1e-9, 'the reader: MD1_1 model 3 clip 3, bone 0');
});

// In the page, three.js's GLTFLoader loads each export; per clip and frame, the world place of
// each bone of the SkinnedMeshes' skeleton.
async function threeJoints(page, glbs) {
  return page.evaluate(
    async list => {
      const THREE = await import('/__three/build/three.module.js');
      const { GLTFLoader } = await import('/__three/examples/jsm/loaders/GLTFLoader.js');
      const out = [];
      for (const base64 of list) {
        const bytes = Uint8Array.from(atob(base64), c => c.charCodeAt(0));
        const gltf = await new GLTFLoader().parseAsync(bytes.buffer, '');
        const skinned = [];
        gltf.scene.traverse(o => o.isSkinnedMesh && skinned.push(o));
        const skeletons = new Set(skinned.map(s => s.skeleton));
        const skeleton = skinned[0]?.skeleton;
        const mixer = new THREE.AnimationMixer(gltf.scene);
        const clips = {};
        for (const clip of gltf.animations) {
          mixer.stopAllAction();
          const action = mixer.clipAction(clip);
          action.play();
          clips[clip.name] = [];
          for (let f = 0; f < Math.round(clip.duration * 30); f++) {
            mixer.setTime(f / 30);
            gltf.scene.updateMatrixWorld(true);
            const at = {};
            // (three.js writes a node's spaces as underscores.)
            for (const bone of skeleton?.bones || [])
              at[bone.name.replaceAll('_', ' ')] = bone.getWorldPosition(new THREE.Vector3()).toArray();
            clips[clip.name].push(at);
          }
        }
        out.push({ skinned: skinned.length, skeletons: skeletons.size, clips });
      }
      return out;
    },
    glbs.map(g => g.toString('base64')),
  );
}

// Every joint of every frame of every clip of `e` where `found` (clip → frame → bone name →
// place) has it; → how many were compared.
function checkJoints(e, found, who) {
  const tol = tolerance(e);
  let compared = 0;
  for (const [clip, frames] of expected(e)) {
    assert.ok(found[clip], `${e.name}: ${who} has no clip ${clip}`);
    assert.equal(found[clip].length, frames.length, `${e.name} ${clip}: ${who}'s frames`);
    frames.forEach((joints, f) =>
      joints.forEach((want, b) => {
        if (!want) return;
        near(found[clip][f][`bone ${b}`], want, tol, `${e.name} ${clip} frame ${f} bone ${b} (${who})`);
        compared++;
      }),
    );
  }
  return compared;
}

test(
  "three.js's GLTFLoader finds a skinned mesh per model whose skeleton is where the game puts it at every frame of every clip",
  { timeout: 300_000 },
  async () => {
    const { page, problems } = await newPage(browser, server.url);
    await withThree(page);
    const found = await threeJoints(
      page,
      exports.map(e => e.skin),
    );
    let compared = 0;
    exports.forEach((e, i) => {
      assert.ok(found[i].skinned >= 1, `${e.name}: a SkinnedMesh`);
      assert.equal(found[i].skeletons, 1, `${e.name}: its primitives share one skeleton`);
      compared += checkJoints(e, found[i].clips, 'three.js');
    });
    console.log(`# three.js: ${compared} joint places checked in ${exports.length} exports`);
    assert.ok(compared > 5000, `joint places checked: ${compared}`);
    assert.deepEqual(problems, []);
    await page.close();
  },
);

// Per import at 30 frames a second (a frame a key): its armatures, the first one's bones
// and, per action, each bone's head at each frame, in glTF's axes (Blender is Z-up: its
// (x, y, z) is glTF's (x, −z, y)).
const ARMATURE = `    armatures = [o for o in bpy.context.scene.objects if o.type == 'ARMATURE']
    entry.update({'armatures': len(armatures), 'actions': {}, 'bones': []})
    if armatures:
        arm = armatures[0]
        entry['bones'] = [b.name for b in arm.data.bones]
        for action in bpy.data.actions:
            arm.animation_data.action = action
            start, end = action.frame_range
            frames = []
            for f in range(int(round(start)), int(round(end))):
                bpy.context.scene.frame_set(f)
                at = {}
                for b in arm.pose.bones:
                    p = arm.matrix_world @ b.head
                    at[b.name] = [p.x, p.z, -p.y]
                frames.append(at)
            entry['actions'][action.name] = frames`;

test(
  'Blender imports each character as one armature with its bones and an action per clip, each bone where the game puts it',
  { timeout: 600_000 },
  async () => {
    const folder = scratchDir('rig-blender');
    exports.forEach((e, i) => writeFileSync(join(folder, `${String(i).padStart(3, '0')}.glb`), e.skin));
    const report = blenderImports(folder, {
      before: '    bpy.context.scene.render.fps = 30',
      each: ARMATURE,
    });
    let compared = 0;
    exports.forEach((e, i) => {
      const r = report[`${String(i).padStart(3, '0')}.glb`];
      assert.equal(r.armatures, 1, `${e.name}: one armature`);
      assert.deepEqual(
        r.bones.sort(),
        e.rig.bones
          .map((b, k) => (b ? `bone ${k}` : null))
          .filter(Boolean)
          .sort(),
        `${e.name}: the armature's bones`,
      );
      const clips = [...expected(e).keys()];
      assert.equal(
        Object.keys(r.actions).length,
        clips.length,
        `${e.name}: an action per clip: ${Object.keys(r.actions)}`,
      );
      // Blender names an action after the animation and the object it moves.
      const byClip = Object.fromEntries(
        clips.map(c => [
          c,
          Object.entries(r.actions).find(([name]) => name === c || name.startsWith(`${c}_`))?.[1],
        ]),
      );
      compared += checkJoints(e, byClip, 'Blender');
    });
    console.log(`# Blender: ${compared} joint places checked in ${exports.length} imports`);
    assert.ok(compared > 5000, `joint places checked: ${compared}`);
  },
);

test(
  'the page exports a skin by default and nodes when the menu says so, and export --all writes either',
  { timeout: 300_000 },
  async () => {
    const { page, problems } = await newPage(browser, server.url);
    await withThree(page);
    await page.waitForFunction(() => document.querySelectorAll('#file-list li[data-path]').length > 0);
    await page.evaluate(() => window.relicview.open('MD1_1.BSX'));
    const option = await page.evaluate(() => window.relicview.choice().options.indexOf('model 3'));
    await page.evaluate(k => window.relicview.choose(k), option);
    const glb = Buffer.from(
      await page.evaluate(async () => {
        const g = await window.relicview.exportGlb();
        let text = '';
        for (let i = 0; i < g.length; i += 0x8000) text += String.fromCharCode(...g.subarray(i, i + 0x8000));
        return btoa(text);
      }),
      'base64',
    );
    const md1 = exports.find(e => e.name === 'MD1_1.BSX model 3');
    const json = gltfJson(glb);
    assert.equal(json.skins?.length, 1, 'the menu starts at a skin');
    assert.deepEqual(
      json.animations.map(a => a.name).sort(),
      [...expected(md1).keys()].sort(),
      "the model's clips and no other's",
    );
    const [found] = await threeJoints(page, [glb]);
    checkJoints(md1, found.clips, 'three.js, from the page');
    assert.deepEqual(
      await page.evaluate(() => [...document.querySelectorAll('#export-rig option')].map(o => o.value)),
      ['skin', 'nodes'],
      "the menu offers the core's rigs",
    );
    await page.evaluate(() => {
      document.querySelector('#display-menu')?.setAttribute('open', '');
    });
    await page.locator('#export-rig').selectOption('nodes');
    const nodes = await page.evaluate(async () => {
      const g = await window.relicview.exportGlb();
      return JSON.parse(
        new TextDecoder().decode(
          g.subarray(20, 20 + new DataView(g.buffer, g.byteOffset).getUint32(12, true)),
        ),
      );
    });
    assert.equal(nodes.skins, undefined, 'nodes: no skin');
    assert.ok(nodes.meshes.length > 1, 'nodes: a mesh per part');
    assert.deepEqual(problems, []);
    await page.close();

    for (const rig of ['skin', 'nodes']) {
      const folder = join(out, `all-${rig}`);
      mkdirSync(folder, { recursive: true });
      execFileSync(bin, ['export', dir, '--all', '--rig', rig, '-o', folder], { encoding: 'utf8' });
      for (const f of ['MD1_1.BSX.glb', 'GEN.BSX.glb', 'CLOUD.BCX.glb']) {
        const file = readdirSync(folder, { recursive: true }).find(p => String(p).endsWith(f));
        assert.ok(file, `export --all wrote ${f}`);
        const bytes = readFileSync(join(folder, String(file)));
        const report = await validator.validateBytes(new Uint8Array(bytes), { maxIssues: 100 });
        assert.equal(report.issues.numErrors + report.issues.numWarnings, 0, `${rig} ${f}`);
        assert.equal(Boolean(gltfJson(bytes).skins), rig === 'skin', `export --all --rig ${rig}: ${f}`);
      }
    }
  },
);
