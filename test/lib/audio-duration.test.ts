import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { audioDurationSeconds } from '../../src/lib/audio-duration.js';

// 1.25 s of a 440 Hz tone at 8 kHz, encoded by ffmpeg (test/fixtures/audio/README.md). The MP3
// figures include the encoder's padding frames, as ffprobe reports them too.
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/audio/', import.meta.url));
const read = (name: string) => readFileSync(FIXTURES + name);
const close = (actual: number | null, expected: number, what: string) =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 0.01, `${what}: ${actual} vs ${expected}`);

test('each container the gateway reads gives the length ffprobe gives', () => {
  for (const [file, seconds] of [['tone.wav', 1.25], ['tone.flac', 1.25], ['tone.opus', 1.25], ['tone.ogg', 1.25], ['tone.m4a', 1.25],
    ['tone-cbr.mp3', 1.44], ['tone-vbr-id3.mp3', 1.44], ['tone.webm', 1.258]] as const) {
    close(audioDurationSeconds(read(file)), seconds, file);
  }
});

test('a WAV whose recorder never filled in the data size counts the rest of the file', () => {
  const b = Buffer.from(read('tone.wav'));
  const at = b.indexOf('data');
  b.writeUInt32LE(0xffffffff, at + 4);
  close(audioDurationSeconds(b), 1.25, 'size 0xFFFFFFFF');
  b.writeUInt32LE(0, at + 4);
  close(audioDurationSeconds(b), 1.25, 'size 0');
});

test('an MP3 cut short counts the frames that arrived; one without a Xing header is walked', () => {
  const cbr = read('tone-cbr.mp3');
  const half = audioDurationSeconds(cbr.subarray(0, cbr.length / 2));
  assert.ok(half !== null && half > 0.6 && half < 0.8, `half: ${half}`);
});

test('a WebM recorded as a stream (sizes unknown, no Duration, as browsers write it) counts to its last block', () => {
  // The last block starts one 20 ms Opus frame before the end; billing rounds up to whole seconds.
  close(audioDurationSeconds(read('tone-live.webm')), 1.24, 'tone-live.webm');
  const live = read('tone-live.webm');
  const cut = audioDurationSeconds(live.subarray(0, Math.floor(live.length / 2)));
  assert.ok(cut !== null && cut > 0.3 && cut < 1, `half: ${cut}`);
});

test('what it cannot read is null, never a guess: ADTS AAC, other bytes, text, a broken header', () => {
  assert.is(audioDurationSeconds(read('tone.aac')), null);
  assert.is(audioDurationSeconds(Buffer.alloc(40_000, 0x42)), null);
  assert.is(audioDurationSeconds(Buffer.from('not audio at all, just some text that is long enough')), null);
  assert.is(audioDurationSeconds(Buffer.alloc(4)), null);
  const wav = Buffer.from(read('tone.wav'));
  wav.writeUInt32LE(0, wav.indexOf('fmt ') + 16); // byte rate 0
  assert.is(audioDurationSeconds(wav), null);
  // A header claiming more time than its bytes could carry (here 20 kB as 5.5 hours) is not believed.
  wav.writeUInt32LE(1, wav.indexOf('fmt ') + 16);
  assert.is(audioDurationSeconds(wav), null);
  // A stray sync word in other data must not pass for an MP3: one frame header, then noise.
  const stray = Buffer.concat([read('tone-cbr.mp3').subarray(0, 200), Buffer.alloc(20_000, 0x42)]);
  assert.is(audioDurationSeconds(stray), null);
});

test('damaged and truncated files never throw: the answer is a length or null', () => {
  let seed = 1;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (const file of ['tone.wav', 'tone.flac', 'tone.opus', 'tone.ogg', 'tone.m4a', 'tone-cbr.mp3', 'tone.webm', 'tone-live.webm']) {
    const original = read(file);
    for (let i = 0; i < 2_000; i++) {
      let b = Buffer.from(original);
      for (let k = Math.floor(rnd() * 8); k > 0; k--) b[Math.floor(rnd() * b.length)] = rnd() < 0.5 ? 0xff : Math.floor(rnd() * 256);
      if (rnd() < 0.3) b = b.subarray(0, Math.floor(rnd() * b.length));
      const s = audioDurationSeconds(b);
      assert.ok(s === null || (Number.isFinite(s) && s > 0), `${file}: ${s}`);
    }
  }
});

test.run();
