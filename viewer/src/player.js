// Clip playback with a time we own (so seek() is exact and tests are deterministic), and the
// timeline: a scrubbable range with the clip's events (rigport's animations[i].extras.events,
// see src/export/gltf_animation.cpp) as marks.
import * as THREE from 'three';
import { restPose } from './model.js';

// Above this many clips the list gets a filter box (a GTA ped.ifp holds 330).
const FILTER_ABOVE = 8;

export class Player {
  constructor(ui, onChange, onClipStart = () => {}) {
    this.ui = ui;  // {list, filter, range, time, speed, marks, playButton}
    this.onChange = onChange;
    this.onClipStart = onClipStart;  // a new clip starts: the caller frames the camera on it
    this.model = null;
    this.mixer = null;
    this.action = null;
    this.clip = null;
    this.time = 0;
    this.speed = 1;
    this.playing = false;
    ui.range.addEventListener('input', () => this.seek(Number(ui.range.value)));
    ui.speed.addEventListener('change', () => { this.speed = Number(ui.speed.value); });
    ui.playButton.addEventListener('click', () => this.toggle());
    ui.filter.addEventListener('input', () => this.filter(ui.filter.value));
  }

  // Shows the clip buttons whose name holds `text` (any case); the rest pose button stays.
  filter(text) {
    const needle = text.trim().toLowerCase();
    let shown = 0;
    for (const b of this.ui.list.children) {
      if (!b.dataset.clip) continue;
      b.hidden = needle !== '' && !b.dataset.clip.toLowerCase().includes(needle);
      if (!b.hidden) shown++;
    }
    return shown;
  }

  setModel(model) {
    this.model = model;
    this.mixer = new THREE.AnimationMixer(model.root);
    this.action = null;
    this.clip = null;
    this.playing = false;
    this.ui.list.replaceChildren();
    const rest = document.createElement('button');
    rest.textContent = 'rest pose';
    rest.addEventListener('click', () => this.rest());
    this.ui.list.append(rest);
    for (const clip of model.gltf.animations) {
      const b = document.createElement('button');
      b.textContent = `${clip.name} (${this.lengthOf(clip).toFixed(2)} s)`;
      b.dataset.clip = clip.name;
      b.addEventListener('click', () => this.play(clip.name));
      this.ui.list.append(b);
    }
    const count = model.gltf.animations.length;
    this.ui.filter.hidden = count <= FILTER_ABOVE;
    this.ui.filter.value = '';
    this.ui.filter.placeholder = `filter ${count} clips`;
    this.rest();
  }

  clips() {
    return (this.model ? this.model.gltf.animations : []).map((c) => ({
      name: c.name,
      duration: this.lengthOf(c),
      tracks: c.tracks.length,
      events: (c.userData.events || []).map((e) => ({ time: e.time, type: e.type, payload: e.payload })),
    }));
  }

  // The longer of the keyed range and rigport's extras.duration (a clip may hold still at its end).
  lengthOf(clip) {
    return Math.max(clip.duration, Number(clip.userData.duration) || 0);
  }

  rest() {
    if (this.action) this.action.stop();
    this.action = null;
    this.clip = null;
    this.playing = false;
    this.time = 0;
    restPose(this.model);
    this.refresh();
  }

  play(name) {
    const clip = this.model.gltf.animations.find((c) => c.name === name);
    if (!clip) return false;
    if (this.clip !== clip) {
      if (this.action) this.action.stop();
      restPose(this.model);  // tracks a new clip lacks must not keep the old clip's pose
      this.clip = clip;
      this.action = this.mixer.clipAction(clip);
      this.action.play();
      this.time = 0;
      this.onClipStart(clip);
    }
    this.playing = true;
    this.apply();
    return true;
  }

  pause() { this.playing = false; this.refresh(); }
  toggle() {
    if (!this.clip) {
      const first = this.model.gltf.animations[0];
      if (first) this.play(first.name);
      return;
    }
    this.playing ? this.pause() : this.play(this.clip.name);
  }

  seek(t) {
    if (!this.clip) return;
    const length = this.lengthOf(this.clip);
    this.time = Math.min(Math.max(0, t), length);
    this.apply();
  }

  step(frames) {
    if (!this.clip) return;
    this.playing = false;
    this.seek(this.time + frames / 30);
  }

  // Called every frame with the elapsed seconds.
  tick(dt) {
    if (!this.playing || !this.clip) return;
    const length = this.lengthOf(this.clip);
    this.time = length > 0 ? (this.time + dt * this.speed) % length : 0;
    this.apply();
  }

  // Poses the playing clip at `t` without moving the timeline (for framing the whole clip).
  poseAt(t) {
    if (!this.action) return;
    this.action.time = t;
    this.mixer.update(0);
  }

  apply() {
    if (this.action) {
      this.action.time = this.time;
      this.mixer.update(0);
    }
    this.refresh();
  }

  refresh() {
    const { range, time, marks, playButton, list } = this.ui;
    const length = this.clip ? this.lengthOf(this.clip) : 0;
    range.max = String(length || 1);
    range.value = String(this.time);
    range.disabled = !this.clip;
    time.textContent = this.clip ? `${this.time.toFixed(3)} / ${length.toFixed(3)} s` : 'rest pose';
    playButton.textContent = this.playing ? '❚❚' : '▶';
    for (const b of list.children) {
      const active = this.clip ? b.dataset.clip === this.clip.name : !b.dataset.clip;
      if (active && !b.classList.contains('active')) b.scrollIntoView({ block: 'nearest' });
      b.classList.toggle('active', active);
    }
    if (marks.dataset.clip !== (this.clip ? this.clip.name : '')) this.drawMarks(length);
    this.onChange();
  }

  drawMarks(length) {
    const { marks } = this.ui;
    marks.replaceChildren();
    marks.dataset.clip = this.clip ? this.clip.name : '';
    if (!this.clip || length <= 0) return;
    for (const e of this.clip.userData.events || []) {
      const m = document.createElement('div');
      m.className = 'mark';
      m.style.left = `${(100 * e.time) / length}%`;
      m.title = `${e.time.toFixed(3)} s: ${e.type}${e.payload !== undefined && e.payload !== '' ? ` (${JSON.stringify(e.payload)})` : ''}`;
      m.addEventListener('click', () => { this.playing = false; this.seek(e.time); });
      marks.append(m);
    }
  }
}
