// Short table sounds, generated with the Web Audio API (no sound files to ship or license).
// Muting is remembered by the browser; nothing plays before the first click or key press.
const KEY = "paohuzi.muted";
let context = null;
export let muted = localStorage.getItem(KEY) === "1";

export function setMuted(value) {
  muted = value;
  localStorage.setItem(KEY, value ? "1" : "0");
}

/** Call from a click or key handler: browsers let audio start only after a gesture. */
export function unlock() {
  if (context || !window.AudioContext) return;
  try { context = new AudioContext(); } catch (e) { context = null; }
}

function tone(freq, start, length, {type = "sine", gain = 0.18, slide = 0} = {}) {
  const osc = context.createOscillator(), amp = context.createGain();
  const t0 = context.currentTime + start;
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (slide) osc.frequency.exponentialRampToValueAtTime(freq * slide, t0 + length);
  amp.gain.setValueAtTime(0.0001, t0);
  amp.gain.exponentialRampToValueAtTime(gain, t0 + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, t0 + length);
  osc.connect(amp).connect(context.destination);
  osc.start(t0);
  osc.stop(t0 + length + 0.02);
}

function knock(start, gain = 0.35) {  // a card laid on wood: a short filtered noise burst
  const length = 0.06, buffer = context.createBuffer(1, context.sampleRate * length, context.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
  const source = context.createBufferSource(), filter = context.createBiquadFilter(), amp = context.createGain();
  source.buffer = buffer; filter.type = "bandpass"; filter.frequency.value = 1400; amp.gain.value = gain;
  source.connect(filter).connect(amp).connect(context.destination);
  source.start(context.currentTime + start);
}

const SOUNDS = {
  draw: () => tone(660, 0, 0.08, {type: "triangle", gain: 0.08, slide: 1.3}),
  discard: () => knock(0),
  chi: () => { knock(0, 0.25); tone(523, 0.03, 0.12, {type: "triangle"}); tone(659, 0.1, 0.14, {type: "triangle"}); },
  peng: () => { knock(0); knock(0.07); tone(440, 0.05, 0.16, {type: "square", gain: 0.06}); },
  wei: () => { knock(0, 0.2); knock(0.08, 0.2); },
  pao: () => { [0, 0.06, 0.12].forEach(s => knock(s, 0.3)); tone(392, 0.1, 0.2, {type: "sawtooth", gain: 0.05}); },
  ti: () => { [0, 0.05, 0.1, 0.15].forEach(s => knock(s, 0.3)); tone(330, 0.12, 0.22, {type: "sawtooth", gain: 0.05}); },
  hu: () => [523, 659, 784, 1047].forEach((f, i) => tone(f, i * 0.09, 0.5, {type: "triangle", gain: 0.16})),
  turn: () => { tone(880, 0, 0.18, {gain: 0.1}); tone(1320, 0.09, 0.25, {gain: 0.07}); },
  tick: () => tone(1000, 0, 0.04, {type: "square", gain: 0.03}),
};

export function play(name) {
  if (muted || !context || !SOUNDS[name]) return;
  try { SOUNDS[name](); } catch (e) { /* audio is a nicety: never break the table */ }
}
